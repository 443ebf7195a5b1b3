import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { bundleAsAFunction } from '../support/bundle.js';

// A bundle's stacks point at the TypeScript sources without Node's --enable-source-maps
// (shared/platform/stack-traces.ts): a fixture bundled as the functions are (minified, its map's
// sources relative to the repository, dependencies unmapped), run by a plain `node`.
const FIXTURE = `${REPO_ROOT}/test/support/stack-fixture.ts`;

let dir: string;
let run: { own: string; parse: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stack-traces-'));
  await bundleAsAFunction(FIXTURE, join(dir, 'index.mjs'));
  const map = join(dir, 'index.mjs.map');
  await promisify(execFile)(process.execPath, [`${REPO_ROOT}/infra/bundling/source-map-paths.mjs`, map, REPO_ROOT]);
  await promisify(execFile)(process.execPath, [`${REPO_ROOT}/infra/bundling/drop-dependency-mappings.mjs`, map]);
  const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'index.mjs')], {
    env: { PATH: process.env.PATH },
  });
  run = JSON.parse(stdout);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("an error of our code: its first frame is the source's file, line and column, as the map says", () => {
  const [header, first] = run.own.split('\n');
  expect(header).toBe('Error: thrown from the fixture');
  // Line 5, column 9 of test/support/stack-fixture.ts: `throw new Error(...)`.
  expect(first).toMatch(/^ {4}at .*test\/support\/stack-fixture\.ts:5:9\)?$/);
  expect(run.own).not.toMatch(/index\.mjs:\d+:\d+/);
});

test("frames outside the bundle's sources are V8's own", () => {
  const [header, first] = run.parse.split('\n');
  expect(header).toMatch(/^SyntaxError: /);
  expect(first).toMatch(/^ {4}at JSON\.parse \(<anonymous>\)$/);
});

test('the sources (tsx, Jest) keep their own stack traces: nothing is installed outside a bundle', async () => {
  const before = Error.prepareStackTrace;
  await import('#shared/platform/stack-traces.js');
  expect(Error.prepareStackTrace).toBe(before);
});
