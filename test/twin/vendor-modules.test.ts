import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { vendorModules } from '#local/reload/vendor-modules.js';
import { REPO_ROOT } from '#service/repository-root.js';

// What a spare functions' process loads ahead: the packages the functions' code imports at run
// time, never a type-only import, a path, an import map entry or a built-in.
test('the packages imported at run time, from every form of import statement', async () => {
  const root = await mkdtemp(join(tmpdir(), 'vendor-modules-'));
  try {
    await mkdir(join(root, 'shared', 'deep'), { recursive: true });
    await mkdir(join(root, 'functions'));
    await writeFile(
      join(root, 'shared', 'deep', 'a.ts'),
      [
        "import { z } from 'zod/mini';",
        "import type { Context } from 'aws-lambda';",
        "import {\n  type A,\n  b,\n} from '@scope/pkg/sub';",
        "import 'side-effect';",
        "export { x } from 'reexported';",
        "export type { Y } from 'types-only';",
        "import { readFile } from 'node:fs/promises';",
        "import { ENV } from '#shared/platform/environment.js';",
        "import { local } from './local.js';",
        'const text = \'import nothing from "in-a-string"\';',
      ].join('\n'),
    );
    await writeFile(join(root, 'functions', 'f.ts'), "import middy from '@middy/core';\n");
    expect(await vendorModules(root)).toEqual([
      '@middy/core',
      '@scope/pkg/sub',
      'reexported',
      'side-effect',
      'zod/mini',
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("the repository's functions import the AWS SDK, Powertools, Middy and zod, and no CDK", async () => {
  const found = await vendorModules(REPO_ROOT);
  expect(found).toEqual(expect.arrayContaining(['@aws-sdk/client-dynamodb', '@middy/core', 'zod/mini']));
  expect(found.filter((name) => /aws-cdk|constructs|cdk-nag/.test(name))).toEqual([]);
});
