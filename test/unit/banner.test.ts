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

describe('the token', () => {
  const withToken = {
    ...runtime,
    token: 'st_secret',
    exportLine: 'export BASE_URL=x API_KEY=ak_1 AUTH_TOKEN=st_secret',
  };

  test('is printed to a terminal, with the line to paste', () => {
    const text = banner(withToken as LocalRuntime, { terminal: true });
    expect(text).toContain('x-service-auth-token: st_secret');
    expect(text).toContain('  export BASE_URL=x API_KEY=ak_1 AUTH_TOKEN=st_secret');
  });

  test('is not printed elsewhere: the banner names env.sh in the data directory instead', () => {
    const onDisk = { ...withToken, dataDir: '/data', shellEnvFile: '/data/env.sh' } as LocalRuntime;
    const text = banner(onDisk, { terminal: false });
    expect(text).not.toContain('st_secret');
    expect(text).toContain('x-service-auth-token: in /data/env.sh (not printed: the output is not a terminal)');
    expect(text).toContain('  source /data/env.sh');
  });

  test('in memory, where there is no env.sh, it says how to choose the token instead', () => {
    const text = banner(withToken as LocalRuntime, { terminal: false });
    expect(text).not.toContain('st_secret');
    expect(text).toContain('set LOCAL_AUTH_TOKEN to choose it');
    expect(text).toContain('export BASE_URL=http://127.0.0.1:3000 API_KEY=ak_1 AUTH_TOKEN=…');
  });
});
