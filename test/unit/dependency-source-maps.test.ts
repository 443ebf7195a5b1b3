import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { SourceMap, type SourceMapPayload, type SourceMapping } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { bundleAsAFunction } from '../support/bundle.js';

// The functions' source maps leave the bundled dependencies unmapped (the bundling step runs
// infra/bundling/drop-dependency-mappings.mjs): the first stack a function formats reads a map
// of our sources only (shared/platform/stack-traces.ts), and it still points at the TypeScript.
const SCRIPT = `${REPO_ROOT}/infra/bundling/drop-dependency-mappings.mjs`;
const ENTRY = `${REPO_ROOT}/functions/not-found.ts`;

let dir: string;
let full: SourceMapPayload;
let stripped: SourceMapPayload;
let lines: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dependency-maps-'));
  await bundleAsAFunction(ENTRY, join(dir, 'index.mjs'));
  const mapFile = join(dir, 'index.mjs.map');
  full = JSON.parse(await readFile(mapFile, 'utf8'));
  await promisify(execFile)(process.execPath, [SCRIPT, mapFile]);
  stripped = JSON.parse(await readFile(mapFile, 'utf8'));
  lines = (await readFile(join(dir, 'index.mjs'), 'utf8')).split('\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A position's mapping (Node also gives the original name, which its types leave out). */
type Entry = Partial<SourceMapping> & { name?: string };

/** What both maps say about every 3rd column of the bundle. */
const positions = () => {
  const before = new SourceMap(full);
  const after = new SourceMap(stripped);
  return lines.flatMap((text, line) =>
    Array.from({ length: Math.ceil(text.length / 3) }, (_, i) => ({
      before: before.findEntry(line, i * 3) as Entry,
      after: after.findEntry(line, i * 3) as Entry,
    })),
  );
};

test('the map names no dependency source, and keeps ours', () => {
  expect(full.sources.some((source) => source.includes('node_modules/'))).toBe(true);
  expect(stripped.sources.filter((source) => source.includes('node_modules/'))).toEqual([]);
  expect(stripped.sources).toEqual(full.sources.filter((source) => !source.includes('node_modules/')));
});

test('code of our sources maps to the same place as before; dependency code maps to nothing', () => {
  const all = positions();
  const ours = all.filter(({ before }) => before.originalSource && !before.originalSource.includes('node_modules/'));
  const theirs = all.filter(({ before }) => before.originalSource?.includes('node_modules/'));
  expect(ours.length).toBeGreaterThan(100);
  expect(theirs.length).toBeGreaterThan(100);
  for (const { before, after } of ours) {
    expect([after.originalSource, after.originalLine, after.originalColumn, after.name]).toEqual([
      before.originalSource,
      before.originalLine,
      before.originalColumn,
      before.name,
    ]);
  }
  expect(theirs.filter(({ after }) => after.originalSource !== undefined)).toEqual([]);
});
