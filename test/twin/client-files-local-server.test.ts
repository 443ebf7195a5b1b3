import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient, type NodeServiceClient } from '#client/node.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The Node entry's exportToFile and importFile against the local server (what `npm start` runs):
// the files travel through its S3-compatible server, and an import's upload starts the import by
// itself, as on AWS.

let service: LocalService;
let api: NodeServiceClient;
let work: string;

beforeAll(async () => {
  service = await startLocalService();
  api = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey, token: service.token });
  work = mkdtempSync(join(tmpdir(), 'client-files-twin-'));
});
afterAll(async () => {
  await service?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const WAIT = { intervalMs: 100, timeoutMs: 60_000 };
const USERS = ['ann', 'ben'];
const DOCUMENTS = ['doc-1', 'doc-2'];

/** What config/get and schedule/get answer for every user, document and the organization level. */
const answers = async (organizationId: string) =>
  Promise.all(
    USERS.map(async (userId) => ({
      userId,
      items: (await api.getConfig({ organizationId, userId, documentIds: DOCUMENTS })).map(
        ({ documentId, config, categories, effective }) => ({ documentId, config, categories, effective }),
      ),
      organization: await api.getConfigItem({ organizationId, userId }),
      schedule: (await api.getSchedule({ organizationId, userId })).schedule,
    })),
  );

describe('exportToFile then importFile', () => {
  test("an organization's export, imported into an empty one, reproduces its answers; the same file again changes nothing", async () => {
    const organizationId = 'files-source';
    await api.setConfig({ organizationId, userIds: USERS, config: { inbox: 'MINE' } });
    await api.setConfig({ organizationId, userIds: ['ann'], documentIds: ['doc-1'], config: { email: 'NONE' } });
    await api.setConfig({
      organizationId,
      userIds: ['ben'],
      documentIds: ['doc-2'],
      category: 'comment',
      config: { slack: 'NONE' },
    });
    await api.setSchedule({ organizationId, userIds: ['ann'], schedule: { timeZone: 'Europe/Berlin' } });
    const path = join(work, 'source.jsonl');
    const progress: string[] = [];

    const exported = await api.exportToFile({ organizationId, format: 'jsonl' }, path, {
      ...WAIT,
      onProgress: (status) => progress.push(status.status),
    });

    expect(exported).toMatchObject({ status: 'completed', rows: 4 });
    expect(progress.at(-1)).toBe('completed');
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(4);

    const imported = await api.importFile({ organizationId: 'files-target', format: 'jsonl' }, path, WAIT);
    expect(imported).toMatchObject({ status: 'completed', rowsRead: 4, rowsApplied: 4, rowsRejected: 0 });
    expect(await answers('files-target')).toEqual(await answers(organizationId));

    const again = await api.importFile({ organizationId: 'files-target', format: 'jsonl' }, path, WAIT);
    expect(again).toMatchObject({ status: 'completed', rowsApplied: 0, rowsUnchanged: 4 });
  });
});

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
