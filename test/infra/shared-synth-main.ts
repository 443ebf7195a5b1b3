import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  SHARED_SYNTH_NAMES,
  type SharedSynthName,
  type SharedSynthResult,
  sharedSynthFiles,
} from './shared-synth-files.js';
import { SHARED_SYNTHS, synthService } from './synth.js';

// One of the stack project's shared syntheses (test/infra/shared-synth-global.ts starts them),
// with cdk-nag and cfn-guard, written to the folder given.
const [dir, name] = process.argv.slice(2) as [string | undefined, SharedSynthName | undefined];
if (!dir || !name || !SHARED_SYNTH_NAMES.includes(name))
  throw new Error(`usage: shared-synth-main.ts <folder> <${SHARED_SYNTH_NAMES.join('|')}>`);
const files = sharedSynthFiles(dir, name);
mkdirSync(dirname(files.assembly), { recursive: true });

const write = (result: SharedSynthResult) => {
  writeFileSync(`${files.result}.partial`, JSON.stringify(result));
  renameSync(`${files.result}.partial`, files.result);
};

try {
  const { context, bundle } = SHARED_SYNTHS[name];
  const s = synthService(context, { bundle, outdir: files.assembly });
  // Plain data: each test file builds the construct tree again, without bundling, for the rest.
  write({
    ok: true,
    stackName: s.stack.stackName,
    nagViolations: s.nagViolations.map(({ ruleName, severity, violatingResources }) => ({
      ruleName,
      severity,
      violatingResources: violatingResources.map(({ constructPath }) => ({ constructPath })),
    })),
  });
} catch (error) {
  write({ ok: false, error: (error as Error).stack ?? String(error) });
  process.exitCode = 1;
}
