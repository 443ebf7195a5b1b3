import { readFileSync } from 'node:fs';
import { expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { MIGRATION_CONSUMER_FUNCTION, NOT_FOUND_FUNCTION } from '#service/functions.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { functionSpecOf, handlerEntryOf, ROUTES } from '#service/routes.js';
import { subpathImports } from '../support/bundle.js';

const ENTRIES = [...ROUTES.map(handlerEntryOf), NOT_FOUND_FUNCTION.entry, MIGRATION_CONSUMER_FUNCTION.entry];
// Only zod is in question: every other runtime dependency (and its subpaths) stays out, to keep
// the build fast. Derived from package.json, so a new dependency needs no change here.
const { dependencies } = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as {
  dependencies: Record<string, string>;
};
const EXTERNAL = Object.keys(dependencies)
  .filter((name) => name !== 'zod')
  .flatMap((name) => [name, `${name}/*`]);

// Classic zod put 444 KiB in every function (2.37x the SDK-only bundle, measured by the bench
// at the time); runtime schemas use zod/mini imported as a namespace, which tree-shakes.
// `import { z } from 'zod/mini'` would bring back every locale; `from 'zod'` the classic API.
test.each(ENTRIES)('%s bundles only the tree-shakable zod core, no classic API and no locales', async (entry) => {
  const result = await build({
    entryPoints: [`${REPO_ROOT}/${entry}`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    minify: true,
    metafile: true,
    logLevel: 'silent',
    external: EXTERNAL,
    plugins: [subpathImports],
  });
  // What the bundle keeps (the metafile's inputs also list what tree-shaking dropped).
  const kept = Object.entries(Object.values(result.metafile.outputs)[0]?.inputs ?? {}).filter(
    ([input, { bytesInOutput }]) => input.includes('node_modules/zod/') && bytesInOutput > 0,
  );
  expect(kept.map(([input]) => input).filter((input) => /\/v4\/(classic|locales)\//.test(input))).toEqual([]);
  const zodBytes = kept.reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);
  expect(zodBytes).toBeLessThan(40 * 1024);
});

// Every cold start pays for what its bundle holds: a function that never sends a message must
// not carry (or build at import) the SQS client. Which functions send is their spec's `queues`.
const FUNCTIONS = [...ROUTES.map(functionSpecOf), NOT_FOUND_FUNCTION, MIGRATION_CONSUMER_FUNCTION];
const NON_SENDERS = FUNCTIONS.filter((spec) => !spec.queues).map((spec) => spec.entry);
const SENDERS = FUNCTIONS.filter((spec) => spec.queues).map((spec) => spec.entry);

const importsOf = async (entry: string): Promise<string[]> => {
  const result = await build({
    entryPoints: [`${REPO_ROOT}/${entry}`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    minify: true,
    metafile: true,
    logLevel: 'silent',
    // Dependencies stay external (fast): the output then names each package it still imports.
    external: Object.keys(dependencies).flatMap((name) => [name, `${name}/*`]),
    plugins: [subpathImports],
  });
  return (Object.values(result.metafile.outputs)[0]?.imports ?? []).map((imported) => imported.path);
};

test.each(NON_SENDERS)('%s never sends to SQS and does not bundle the SQS client', async (entry) => {
  expect(await importsOf(entry)).not.toContain('@aws-sdk/client-sqs');
});

// The check above only means something if the senders' bundles do show the package.
test.each(SENDERS)('%s sends to SQS and bundles the SQS client', async (entry) => {
  expect(await importsOf(entry)).toContain('@aws-sdk/client-sqs');
});
