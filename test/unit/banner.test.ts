import { describe, expect, test } from '@jest/globals';
import { banner } from '#local/banner.js';
import type { LocalRuntime } from '#local/runtime.js';

// What `npm start` prints: here, whether it warns that --host opened the API beyond this machine.
const runtime = {
  baseUrl: 'http://127.0.0.1:3000',
  dataDir: undefined,
  credential: 'created',
  dynamoEndpoint: 'http://127.0.0.1:3001',
  tables: { config: 'config' },
  sqsEndpoint: 'http://127.0.0.1:3002',
  queues: [],
  restoredMessages: 0,
  eventsEndpoint: 'http://127.0.0.1:3003',
  apiKey: 'ak_1',
  token: 'st_1',
  exportLine: 'export BASE_URL=http://127.0.0.1:3000',
} as unknown as LocalRuntime;

describe('the banner', () => {
  test.each(['127.0.0.1', 'localhost', '::1', '127.0.0.2'])('says nothing of exposure on loopback (%s)', (host) => {
    expect(banner(runtime, { host })).not.toContain('WARNING');
  });

  test.each(['0.0.0.0', '::', '192.168.1.20'])(
    'warns, right under the URL, that --host %s lets others call the API with the credential',
    (host) => {
      const lines = banner(runtime, { host }).split('\n');
      const at = lines.indexOf('Notification preferences API (local) on http://127.0.0.1:3000');
      expect(lines.slice(at + 2, at + 4)).toEqual([
        `  WARNING      the API listens on ${host}: whoever reaches this machine on that interface can`,
        '               call it with the credential below (granted every organization). The URL above is',
      ]);
    },
  );
});
