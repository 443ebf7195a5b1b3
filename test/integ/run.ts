import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '#service/repository-root.js';
import { assertionVerdicts } from './assertion-results.js';

/**
 * `npm run integ [-- --keep]`: the integration test on a real AWS account (docs/operations.md).
 * Deploys the integ app (test/integ/service-integ.ts: the service stack of the stage `integ`, then
 * the assertions stack whose custom resources call its API in order), reads every assertion's
 * verdict from the stack outputs, and destroys both stacks whatever happened (`--keep` leaves
 * them, to look at). This is what integ-runner does; integ-runner itself is not used because its
 * newest release (2.197) reads cloud assemblies up to schema 53, and aws-cdk-lib 2.276 writes 55,
 * which the project's CDK CLI reads.
 */
const APP = 'npx tsx test/integ/integ.service.ts';
const keep = process.argv.includes('--keep');
const outdir = mkdtempSync(join(tmpdir(), 'integ-'));
const outputsFile = join(outdir, 'outputs.json');

const cdk = (...args: string[]): boolean =>
  spawnSync(join(REPO_ROOT, 'node_modules/.bin/cdk'), ['--app', APP, '--output', join(outdir, 'cdk.out'), ...args], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  }).status === 0;

/** "POST /v2/…" for an assertion output, from the call it checks (its logical id follows the prefix). */
const describe = (output: string): string => {
  const dir = join(outdir, 'cdk.out');
  for (const file of existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.template.json')) : []) {
    const resource = JSON.parse(readFileSync(join(dir, file), 'utf8')).Resources?.[
      output.slice('AssertionResults'.length)
    ];
    const url = JSON.stringify(resource?.Properties?.parameters?.url ?? '');
    const path = /\/v2\/[a-z/]+/.exec(url)?.[0];
    if (path) return `POST ${path}`;
    if (resource?.Properties?.api) return `${resource.Properties.service}.${resource.Properties.api}`;
  }
  return output;
};

/** Every assertion the synthesized assertions stack declares. */
const declaredAssertions = (): string[] => {
  const dir = join(outdir, 'cdk.out');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.template.json'))
    .flatMap((file) => Object.keys(JSON.parse(readFileSync(join(dir, file), 'utf8')).Outputs ?? {}))
    .filter((name) => name.startsWith('AssertionResults'));
};

let ok = false;
try {
  const deployed = cdk('deploy', '--all', '--require-approval', 'never', '--outputs-file', outputsFile);
  const outputs = existsSync(outputsFile) ? JSON.parse(readFileSync(outputsFile, 'utf8')) : {};
  const verdicts = assertionVerdicts(outputs);
  const missing = declaredAssertions().filter((name) => !verdicts.some((v) => v.output === name));
  console.log('\nIntegration test:');
  for (const verdict of verdicts) {
    console.log(
      `${verdict.ok ? 'ok  ' : 'FAIL'}  ${describe(verdict.output)}${verdict.ok ? '' : `: ${verdict.message}`}`,
    );
  }
  for (const name of missing) console.log(`FAIL  ${describe(name)}: no verdict (the deployment stopped before it)`);
  if (!deployed) console.log('FAIL  the deployment failed: its events above say where (a waiter that timed out, ...)');
  ok = deployed && missing.length === 0 && verdicts.length > 0 && verdicts.every((v) => v.ok);
} finally {
  if (keep) {
    console.log(
      `\n--keep: the stacks stay (synthesized in ${outdir}); \`npm run integ\` again removes them, or:\n` +
        `  npx cdk --app '${APP}' destroy --all --force`,
    );
  } else {
    if (!cdk('destroy', '--all', '--force')) {
      console.error(
        'The stacks could not be destroyed: delete NotificationPreferences-integ and the assertions stack by hand.',
      );
      ok = false;
    }
    rmSync(outdir, { recursive: true, force: true });
  }
}
console.log(ok ? '\nIntegration test passed.' : '\nIntegration test FAILED.');
process.exitCode = ok ? 0 : 1;
