import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';

// One truth about the Node that installs the project: package.json's engines. Every direct
// dependency must accept its lowest version (else `npm install` there warns, e.g. Middy 7
// needs Node 22), and the set-up guides must name the same floor.
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const pkg = readJson(join(REPO_ROOT, 'package.json')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

type Version = [number, number, number];
const parse = (text: string): Version => {
  const parts = text.split('.').map(Number);
  if (parts.length > 3 || parts.some((part) => !Number.isInteger(part))) throw new Error(`not a version: ${text}`);
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether `version` satisfies a Node engines range, for the forms dependencies use here
 * (`>=X`, `^X`, alternatives with `||`); any other form fails the test rather than pass it.
 */
const satisfies = (version: Version, range: string): boolean =>
  range.split('||').some((alternative) => {
    const match = /^\s*(>=|\^)\s*(\d+(?:\.\d+){0,2})\s*$/.exec(alternative);
    if (!match) throw new Error(`engines range form not understood: ${JSON.stringify(range)}`);
    const floor = parse(match[2] as string);
    return compare(version, floor) >= 0 && (match[1] === '>=' || version[0] === floor[0]);
  });

const floorText = /^>=(\d+(?:\.\d+){0,2})$/.exec(pkg.engines.node)?.[1];

test('package.json states the Node floor as ">=N"', () => {
  expect(floorText).toBeDefined();
});

test('every direct dependency accepts the lowest Node that package.json allows', () => {
  const floor = parse(floorText as string);
  const refusing = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).flatMap((name) => {
    const range = (readJson(join(REPO_ROOT, 'node_modules', name, 'package.json')) as { engines?: { node?: string } })
      .engines?.node;
    return range && !satisfies(floor, range) ? [`${name} needs Node ${range}`] : [];
  });
  expect(refusing).toEqual([]);
});

test.each(['README.md', 'docs/development.md'])('%s names the same Node floor', (file) => {
  const named = [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/\bNode (\d+(?:\.\d+)?) or newer\b/g)].map(
    (m) => m[1],
  );
  expect(named.length).toBeGreaterThan(0);
  expect(new Set(named)).toEqual(new Set([floorText]));
});
