import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { dataPaths } from '#local/data-dir.js';
import { dbPathHolder } from '#local/dynamodb-local.js';
import { assertPortFree } from '#local/ports.js';
import { isRunning } from '#local/process-state.js';
import { type NpmRunDev, startNpmRunDev } from '../support/npm-run-dev.js';
import { type ScratchCheckout, scratchCheckout } from '../support/scratch-checkout.js';

// `npm run dev` as a developer uses it, in a scratch copy of the repository (its files are
// edited here, never the checkout's): a save of a module a handler imports is in the next
// answer, with DynamoDB Local's JVM, the data and the credential untouched; a save under tools/
// reloads nothing; a save under local/ restarts the twin on the same endpoints, twice in quick
// succession too; Ctrl+C then stops it all. How fast a reload is, the bench measures
// (`npm run bench -- --only=dev-reload`); nothing here is timed.
let checkout: ScratchCheckout;
let dataDir: string;
let dev: NpmRunDev;

const ROUTE_FILE = 'shared/preferences/routes/get-config.ts';
const MESSAGE = 'User config retrieved successfully.';

beforeAll(async () => {
  checkout = await scratchCheckout('npm-run-dev-');
  dataDir = await mkdtemp(join(tmpdir(), 'npm-run-dev-data-'));
  dev = await startNpmRunDev({ cwd: checkout.root, dataDir });
  await dev.waitFor(/Ctrl\+C stops it\./, 0);
}, 120_000);

afterAll(async () => {
  dev?.kill();
  await checkout?.remove();
  await rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  result: { message: string; data: { config: unknown }[] };
}

const post = async (path: string, data: unknown) => {
  const response = await fetch(`${dev.baseUrl}${path}`, {
    method: 'POST',
    headers: dev.headers(),
    body: JSON.stringify({ data }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
};
const getConfig = (path = '/v2/notifications/config/get') =>
  post(path, { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] });

/** Rewrites a file of the copy as an editor does: in place, or as a new file renamed over the old. */
const save = async (file: string, edit: (text: string) => string, how: 'in place' | 'renamed over') => {
  const path = join(checkout.root, file);
  const before = await readFile(path, 'utf8');
  const text = edit(before);
  // An edit that finds nothing to change would test nothing (the code it edits moved on).
  if (text === before) throw new Error(`The edit of ${file} changed nothing`);
  if (how === 'in place') return writeFile(path, text);
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
};

const jvmPid = () => dbPathHolder(dataPaths(dataDir).dynamo);
/** Waits for the reload a save started; returns the new functions' process id. */
const reloaded = async (since: number) =>
  Number(
    (await dev.waitFor(/\[dev\] functions reloaded in \d+ ms \(process (\d+)\)/, since)).match(/process (\d+)/)?.[1],
  );

describe('a save of the functions code reloads only the functions', () => {
  test('an edit of a module a handler imports is in the next answer; DynamoDB Local and the data stay', async () => {
    const set = await post('/v2/notifications/config/set', {
      organizationId: 'acme',
      userIds: ['alice'],
      documentIds: ['doc-1'],
      config: { email: 'NONE' },
    });
    expect(set.status).toBe(200);
    expect((await getConfig()).body.result.message).toBe(MESSAGE);
    const jvm = await jvmPid();
    expect(jvm).toEqual(expect.any(Number));

    // An atomic save (a new file renamed over the old), then an in-place one of the same file.
    const pids: number[] = [];
    for (const [message, how] of [
      ['User config read by the reloaded code.', 'renamed over'],
      ['User config read after a second save.', 'in place'],
    ] as const) {
      const mark = dev.output().length;
      await save(
        ROUTE_FILE,
        (text) => text.replace(/GET_CONFIG_MESSAGE = '[^']*'/, `GET_CONFIG_MESSAGE = '${message}'`),
        how,
      );
      pids.push(await reloaded(mark));
      expect(dev.output().slice(mark)).toContain(`[dev] ${ROUTE_FILE} changed: reloading the functions`);
      const answer = await getConfig();
      expect(answer.body.result.message).toBe(message);
      expect(answer.body.result.data[0]?.config).toEqual({ email: 'NONE' });
      expect(dev.output().slice(mark)).not.toContain('[tsx]');
    }
    expect(await jvmPid()).toBe(jvm);
    // Each reload is a fresh process; the one it replaced exits once it has answered what it had.
    const [first, second] = pids as [number, number];
    expect(second).not.toBe(first);
    const deadline = Date.now() + 20_000;
    while (isRunning(first) && Date.now() < deadline) await sleep(50);
    expect(isRunning(first)).toBe(false);
  }, 120_000);

  test('a route moved in service/ answers at its new path after the reload', async () => {
    const mark = dev.output().length;
    await save(
      ROUTE_FILE,
      (text) => text.replace("'/v2/notifications/config/get'", "'/v2/notifications/config/read'"),
      'in place',
    );
    await reloaded(mark);
    // The routes come from the new process just after it is ready.
    const deadline = Date.now() + 30_000;
    while ((await getConfig('/v2/notifications/config/read')).status !== 200 && Date.now() < deadline) await sleep(50);
    expect((await getConfig('/v2/notifications/config/read')).status).toBe(200);
    expect((await getConfig()).status).toBe(404);
  }, 60_000);

  test('a function that ends its process fails its request only; the next invocation gets a fresh process', async () => {
    const file = 'functions/not-found.ts';
    const original = await readFile(join(checkout.root, file), 'utf8');
    let mark = dev.output().length;
    await save(
      file,
      (text) => text.replace("errorAnswer('NOT_FOUND',", "(process.exit(7) as never) ?? errorAnswer('NOT_FOUND',"),
      'in place',
    );
    await reloaded(mark);
    mark = dev.output().length;
    expect((await post('/v2/nowhere', {})).status).toBe(500);
    await dev.waitFor(/\[dev\] the functions' process \(pid \d+\) stopped; the next invocation starts another/, mark);
    // The twin kept serving: the next invocation starts another process.
    expect((await getConfig('/v2/notifications/config/read')).status).toBe(200);
    mark = dev.output().length;
    await save(file, () => original, 'in place');
    await reloaded(mark);
    expect((await post('/v2/nowhere', {})).status).toBe(404);
  }, 60_000);

  test('a save under tools/ (or docs/, test/) reloads nothing', async () => {
    const mark = dev.output().length;
    await writeFile(join(checkout.root, 'tools', 'seed', 'organization.ts'), '// edited\n', { flag: 'a' });
    await writeFile(join(checkout.root, 'docs', 'probe.md'), 'probe\n');
    await mkdir(join(checkout.root, 'test'), { recursive: true });
    await writeFile(join(checkout.root, 'test', 'probe.ts'), '// probe\n');
    // Long enough for a watcher to have reacted, had one seen it (a reload starts within 30 ms).
    await sleep(2_000);
    expect(dev.output().slice(mark)).not.toMatch(/\[dev\]|\[tsx\]/);
  }, 30_000);
});

describe('a save under local/ restarts the twin', () => {
  test('with its data, credential and endpoints, twice in quick succession too; Ctrl+C stops it all', async () => {
    const before = dev.headers();
    const jvm = await jvmPid();
    const mark = dev.output().length;
    // Two saves close together: the second lands while the first restart is still stopping.
    const probe = join(checkout.root, 'local', 'dev-watch-probe.txt');
    await writeFile(probe, 'first save\n');
    await sleep(300);
    await writeFile(probe, 'second save\n', { flag: 'a' });
    await sleep(300);
    const again = await dev.waitFor(/\[tsx\][\s\S]*Ctrl\+C stops it\./, mark);
    expect(dev.headers()).toEqual(before);
    expect(again).toContain('credential   from the data directory');
    expect(again).toMatch(new RegExp(`DynamoDB +http://127\\.0\\.0\\.1:${dev.ports.dynamodb} `));
    expect(again).toMatch(new RegExp(`SQS +http://127\\.0\\.0\\.1:${dev.ports.sqs}\\n`));
    expect(await jvmPid()).not.toBe(jvm);
    expect((await getConfig('/v2/notifications/config/read')).body.result.data[0]?.config).toEqual({ email: 'NONE' });

    const stopping = dev.output().length;
    dev.interrupt();
    await dev.closed;
    const stop = dev.output().slice(stopping);
    expect(stop).toContain('Stopped.');
    expect(stop).not.toContain('Stopping now.');
    // Nothing left behind: the JVM's lock and all three ports are free.
    expect(await jvmPid()).toBeUndefined();
    for (const [service, port] of [
      ['api', dev.ports.api],
      ['dynamodb', dev.ports.dynamodb],
      ['sqs', dev.ports.sqs],
    ] as const) {
      await expect(assertPortFree(service, '127.0.0.1', port)).resolves.toBeUndefined();
    }
  }, 240_000);
});
