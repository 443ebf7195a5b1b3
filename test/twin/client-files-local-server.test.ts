import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient, type NodeServiceClient } from '#client/node.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The Node entry's importFile against the local server (what `npm start` runs), with the Knock
// and Novu examples of the docs: the files travel through its S3-compatible server, and an
// import's upload starts the import by itself, as on AWS. An export imported again, through
// exportToFile and importFile, is test/reliability/import-round-trip.test.ts.

let service: LocalService;
let api: NodeServiceClient;

beforeAll(async () => {
  service = await startLocalService();
  api = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey, token: service.token });
});
afterAll(async () => {
  await service?.close();
});

const WAIT = { intervalMs: 100, timeoutMs: 60_000 };

describe('the Knock and Novu examples of docs/imports.md', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/imports.md'), 'utf8');
  const example = (format: string) => {
    const body = new RegExp(`^\`\`\`json ${format}\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(doc)?.[1] ?? '';
    // The document shows the line over several lines; the file holds it on one.
    return `${JSON.stringify(JSON.parse(body))}\n`;
  };

  test('a Knock line, uploaded from a stream, imports as documented', async () => {
    const organizationId = 'files-knock';
    const final = await api.importFile({ organizationId, format: 'knock' }, Readable.from([example('knock')]), WAIT);

    expect(final).toMatchObject({ status: 'completed', rowsApplied: 1, rowsPartlyMapped: 1, rowsRejected: 0 });
    const item = await api.getConfigItem({ organizationId, userId: 'user_2f9c' });
    expect(item.config).toEqual({ email: 'ALL', inbox: 'ALL' });
    expect(item.categories).toEqual({
      marketing: { inbox: 'NONE', email: 'NONE', slack: 'NONE' },
      collaboration: { email: 'NONE', slack: 'ALL' },
      billing: { email: 'ALL' },
    });
  });

  test('a Novu line, uploaded from bytes, imports as documented', async () => {
    const organizationId = 'files-novu';
    const final = await api.importFile({ organizationId, format: 'novu' }, Buffer.from(example('novu')), WAIT);

    expect(final).toMatchObject({ status: 'completed', rowsApplied: 1, rowsPartlyMapped: 1, rowsRejected: 0 });
    const item = await api.getConfigItem({ organizationId, userId: 'subscriber-7a1e' });
    expect(item.config).toEqual({ email: 'ALL', inbox: 'ALL', slack: 'NONE' });
  });
});
