import { join } from 'node:path';
import type { PolicyViolation } from 'aws-cdk-lib';

/**
 * Where the stack project's shared syntheses put what they make: its global setup
 * (test/infra/shared-synth-global.ts) names a folder in this variable, which the test files
 * inherit; each synthesis (test/infra/shared-synth-main.ts), once a test file asks for it,
 * writes its cloud assembly in a folder of its own there, and its result last, once everything
 * else is written.
 */
export const SHARED_SYNTH_ENV = 'STACK_TEST_SYNTH_DIR';

/** The shared syntheses, each a stage the test files read (SHARED_SYNTHS in test/infra/synth.ts). */
export const SHARED_SYNTH_NAMES = ['dev', 'prod', 'test'] as const;
export type SharedSynthName = (typeof SHARED_SYNTH_NAMES)[number];

export const sharedSynthFiles = (dir: string, name: SharedSynthName) => ({
  /** The cloud assembly: templates, bundled function code (asset.<hash>/), validation-report.json. */
  assembly: join(dir, name, 'cdk.out'),
  /** The synthesis's output (esbuild's lines, an error's stack), removed with the folder after the run. */
  log: join(dir, name, 'synth.log'),
  /** Written last: `SharedSynthResult`. */
  result: join(dir, name, 'result.json'),
  /** Written by the first test file that reads it: the global setup then starts it. */
  request: join(dir, name, 'requested'),
});

/** What the tests read of a cdk-nag finding (the shared synthesis hands them over as JSON). */
export type NagViolation = Pick<PolicyViolation, 'ruleName' | 'severity'> & {
  violatingResources: { constructPath?: string }[];
};

export type SharedSynthResult =
  | { ok: true; stackName: string; nagViolations: NagViolation[] }
  | { ok: false; error: string };
