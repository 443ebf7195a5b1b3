import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import { dataPaths } from '#local/data-dir.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The data directory holds the tables (the credentials among them), the queued messages and
// the events: its owner's alone, whatever the umask. Here the umask is the usual 022, under
// which a file is created readable by everyone unless its creator says otherwise.
let root: string;
let service: LocalService | undefined;
let umask: number;

beforeAll(async () => {
  umask = process.umask(0o022);
  root = await mkdtemp(join(tmpdir(), 'data-dir-modes-'));
});
afterEach(async () => {
  await service?.close();
  service = undefined;
});
afterAll(async () => {
  process.umask(umask);
  await rm(root, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await lstat(path)).mode & 0o777;

/**
 * Every regular file in the directory and in dynamodb/, with its mode. The twin is running: a file
 * gone between the listing and its mode is a temporary file a write has just renamed into place.
 */
const fileModes = async (dataDir: string) => {
  const modes: Record<string, string> = {};
  for (const dir of [dataDir, dataPaths(dataDir).dynamo]) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(dir, entry.name);
      const mode = await modeOf(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (mode !== undefined) modes[path.slice(dataDir.length + 1)] = mode.toString(8);
    }
  }
  return modes;
};

/** A change that reaches every file: the tables, the stream checkpoints, the events. */
const writeEverything = async (running: LocalService, dataDir: string) => {
  const set = await running.call('/v2/notifications/config/set', {
    organizationId: 'acme',
    userIds: ['alice'],
    documentIds: ['doc-1'],
    config: { email: 'NONE' },
  });
  expect(set.status).toBe(200);
  const deadline = Date.now() + 30_000;
  const paths = dataPaths(dataDir);
  const has = async (path: string) => (await readFile(path, 'utf8').catch(() => '')).length > 0;
  while (!((await has(paths.events)) && (await has(paths.streams))) && Date.now() < deadline) await sleep(100);
};

const EXPECTED_FILES = [
  'aws-credential.json',
  'dynamodb/dynamodb-local.pid',
  expect.stringMatching(/^dynamodb\/LOCAL[0-9A-F]{20}_local\.db$/),
  'endpoint.json',
  'env.sh',
  'events.jsonl',
  'local-credential.json',
  'queues.json',
  'streams.json',
];

test('a new data directory is 0700 and every file in it 0600, the JVM files too', async () => {
  const dataDir = join(root, 'fresh', 'data');
  service = await startLocalService({ inMemory: false, dataDir });
  await writeEverything(service, dataDir);
  expect((await modeOf(dataDir)).toString(8)).toBe('700');
  expect((await modeOf(dataPaths(dataDir).dynamo)).toString(8)).toBe('700');
  const modes = await fileModes(dataDir);
  expect(Object.keys(modes)).toEqual(expect.arrayContaining(EXPECTED_FILES));
  expect(Object.entries(modes).filter(([, mode]) => mode !== '600')).toEqual([]);
});

test('a directory an older twin left readable is tightened on start, files included; a link is not followed', async () => {
  const dataDir = join(root, 'loose');
  const paths = dataPaths(dataDir);
  await mkdir(paths.dynamo, { recursive: true, mode: 0o755 });
  await chmod(dataDir, 0o755);
  await chmod(paths.dynamo, 0o755);
  await writeFile(paths.queues, '', { mode: 0o644 });
  await writeFile(paths.streams, '{}\n', { mode: 0o644 });
  await writeFile(paths.events, '', { mode: 0o644 });
  await writeFile(`${paths.streams}.tmp`, '{}\n', { mode: 0o644 });
  const outside = join(root, 'not-the-twins.txt');
  await writeFile(outside, 'someone else', { mode: 0o644 });
  await symlink(outside, join(dataDir, 'a-link'));

  service = await startLocalService({ inMemory: false, dataDir });
  await writeEverything(service, dataDir);
  expect((await modeOf(dataDir)).toString(8)).toBe('700');
  expect((await modeOf(paths.dynamo)).toString(8)).toBe('700');
  const modes = await fileModes(dataDir);
  expect(Object.keys(modes)).toEqual(expect.arrayContaining(EXPECTED_FILES));
  expect(Object.entries(modes).filter(([, mode]) => mode !== '600')).toEqual([]);
  expect((await modeOf(outside)).toString(8)).toBe('644');
});
