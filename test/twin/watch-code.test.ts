import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { type CodeWatcher, watchCode } from '#local/reload/watch-code.js';

// What `npm run dev` sees of a save: one call per burst of events, for sources in the watched
// folders only, whichever way an editor writes (in place, or a new file renamed over the old,
// again and again), in folders created after the start too.
let root: string;
let watcher: CodeWatcher | undefined;
let bursts: string[][];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'watch-code-'));
  for (const dir of ['functions', 'shared/preferences', 'service', 'tools']) {
    await mkdir(join(root, dir), { recursive: true });
  }
  bursts = [];
  watcher = watchCode({ root, folders: ['functions', 'shared', 'service'], onChange: (files) => bursts.push(files) });
});
afterEach(async () => {
  watcher?.close();
  await rm(root, { recursive: true, force: true });
});

/** Waits for the next burst to be reported (the watcher settles 30 ms after the last event). */
const nextBurst = async (count: number) => {
  const deadline = Date.now() + 5_000;
  while (bursts.length < count && Date.now() < deadline) await sleep(10);
  return bursts[count - 1];
};

test('a save in place and repeated saves renamed over the file are each one burst', async () => {
  const file = join(root, 'shared/preferences/store.ts');
  await writeFile(file, 'one');
  expect(await nextBurst(1)).toEqual(['shared/preferences/store.ts']);
  for (let i = 2; i <= 4; i++) {
    await writeFile(`${file}.tmp`, `save ${i}`);
    await rename(`${file}.tmp`, file);
    expect(await nextBurst(i)).toEqual(['shared/preferences/store.ts']);
  }
  // Node's recursive watch lost the file after a rename: an in-place save after them still counts.
  await writeFile(file, 'in place again');
  expect(await nextBurst(5)).toEqual(['shared/preferences/store.ts']);
});

test('a folder created after the start is watched; several files saved together are one burst', async () => {
  await mkdir(join(root, 'shared/schedules'));
  expect(await nextBurst(1)).toEqual(['shared/schedules/']);
  await writeFile(join(root, 'shared/schedules/zone.ts'), 'a');
  await writeFile(join(root, 'service/tables.ts'), 'b');
  expect(await nextBurst(2)).toEqual(['service/tables.ts', 'shared/schedules/zone.ts']);
});

test("editors' swap, backup and hidden files, other folders and other kinds of file are not changes", async () => {
  for (const file of [
    'functions/.set-config.ts.swp',
    'functions/set-config.ts~',
    'functions/4913',
    'functions/.#set-config.ts',
    'functions/notes.md',
    'tools/seed.ts',
  ]) {
    await writeFile(join(root, file), 'x');
  }
  await sleep(300);
  expect(bursts).toEqual([]);
});
