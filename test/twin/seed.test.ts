import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createClient } from '#client/index.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { documentView } from '../support/results.js';

// `npm run seed` as a developer runs it: first on a data directory no server uses (it starts the
// twin itself), then against the `npm start` serving that directory, found through it. Asynchronous
// child processes: the service answers from this very process.
const exec = promisify(execFile);
const seed = async (dataDir: string) =>
  (await exec('npm', ['run', '--silent', 'seed', '--', '--data-dir', dataDir], { cwd: REPO_ROOT, timeout: 120_000 }))
    .stdout;

// ada has a document entry on roadmap-2027, none on design-system, and engineering's organization defaults.
const ADA = [
  documentView('ada', 'roadmap-2027', {
    config: { inbox: 'NONE', slack: 'ALL' },
    effective: { inbox: 'NONE', email: 'NONE', slack: 'ALL' },
    source: { inbox: 'document', email: 'organization', slack: 'document' },
  }),
  documentView('ada', 'design-system', {
    config: {},
    effective: { inbox: 'ALL', email: 'NONE', slack: 'MINE' },
    source: { inbox: 'default', email: 'organization', slack: 'organization' },
  }),
];
const ADA_REQUEST = { organizationId: 'northwind', userId: 'ada', documentIds: ['roadmap-2027', 'design-system'] };

let dataDir: string;
let service: LocalService | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'seed-'));
});
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('with no server running, the seed fills the data directory; npm start then serves what it wrote', async () => {
  const output = await seed(dataDir);
  expect(output).toContain(`Seeded organization "northwind" through the data directory ${dataDir}`);
  // The twin it ran for itself is gone: no env.sh naming its port.
  expect(existsSync(join(dataDir, 'env.sh'))).toBe(false);
  expect(output).toMatch(/20 users, 4 documents\n\s+organization-level\s+13 entries\n\s+roadmap-2027\s+7 entries/);

  service = await startLocalService({ inMemory: false, dataDir });
  const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey, token: service.token });
  expect(await client.getConfig(ADA_REQUEST)).toEqual(ADA);
  // The policy and ada's comment layer: security is locked on, comments never reach her on slack.
  const [security] = await client.getConfig({ organizationId: 'northwind', userId: 'ada', category: 'security' });
  expect(security?.source).toEqual({ inbox: 'locked', email: 'locked', slack: 'organization' });
  const [comment] = await client.getConfig({ organizationId: 'northwind', userId: 'ada', category: 'comment' });
  expect([comment?.categories, comment?.effective.slack]).toEqual([{ comment: { slack: 'NONE' } }, 'NONE']);
  // Schedules: ada's email waits through a weekday night in Berlin, bruno's goes to his digest.
  const night = await client.resolveConfig({
    organizationId: 'northwind',
    documentId: 'incident-review',
    userIds: ['ada', 'bruno'],
    activity: { involvedUserIds: ['ada'] },
    at: '2026-11-24T23:00:00Z',
  });
  expect(night.users.bruno?.decision?.email).toMatchObject({ action: 'digest', reason: 'digest' });
  expect((await client.getSchedule({ organizationId: 'northwind', userId: 'ada' })).schedule?.timeZone).toBe(
    'Europe/Berlin',
  );
}, 120_000);

test('against a running npm start: its printed curl shows the seeded layers, and migrating launch-plan moves its 8 entries', async () => {
  if (!service) throw new Error('the first test starts the service');
  const output = await seed(dataDir);
  expect(output).toContain(`through the npm start on ${service.baseUrl}`);

  // The first printed command, run as it is printed.
  const start = output.indexOf('  curl -s');
  const getCommand = output.slice(start, output.indexOf('  curl -s', start + 1));
  expect(getCommand).toContain(`${service.baseUrl}/v2/notifications/config/get`);
  const answer = JSON.parse((await exec('bash', ['-euo', 'pipefail', '-c', getCommand])).stdout);
  expect(answer.result.data).toEqual(ADA);

  const client = createClient({ baseUrl: service.baseUrl, apiKey: service.apiKey, token: service.token });
  const { migrationId } = await client.migrateDocument({
    organizationId: 'northwind',
    documentId: 'launch-plan',
    newDocumentId: 'launch-plan-v2',
  });
  const done = await client.waitForMigration({ organizationId: 'northwind', migrationId }, { intervalMs: 50 });
  expect(done).toMatchObject({ status: 'completed', moved: 8, skipped: 0 });
}, 120_000);

test('a URL where nothing listens: exit 1, naming the URL and why (not only "fetch failed")', async () => {
  // A port just freed: nothing listens there.
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const failed = await exec(
    'npm',
    ['run', '--silent', 'seed', '--', '--url', url, '--api-key', 'ak_x', '--token', 'st_x'],
    {
      cwd: REPO_ROOT,
      timeout: 60_000,
    },
  ).catch((error: { code: number; stderr: string }) => error);
  expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining(`npm run seed: POST ${url}/v2/`) });
  expect((failed as { stderr: string }).stderr).toMatch(/ failed: fetch failed \(ECONNREFUSED\)\n$/);
}, 60_000);
