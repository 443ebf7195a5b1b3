import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { type App, type CfnElement, CfnResource, type Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createServiceApp } from '#infra/service-app.js';
import type { ServiceStack } from '#infra/stack.js';
import { REPO_ROOT } from '#service/repository-root.js';
import {
  type NagViolation,
  SHARED_SYNTH_ENV,
  type SharedSynthName,
  type SharedSynthResult,
  sharedSynthFiles,
} from './shared-synth-files.js';

/** For the beforeAll that synthesizes: bundling takes seconds, many more on a busy machine. */
export const SYNTH_TIMEOUT_MS = 120_000;

/**
 * For the beforeAll that waits for a shared synthesis: the stack test's bundles every function
 * while the run's other files take the cores.
 */
export const SHARED_SYNTH_TIMEOUT_MS = 300_000;

export interface Synthesized {
  stack: ServiceStack;
  template: Template;
  /** The cloud assembly directory (bundled function code is in asset.<hash>/). */
  outdir: string;
  /** Findings of the AwsSolutions pack that no acknowledgement covers. */
  nagViolations: NagViolation[];
  /** CloudFormation logical id of a construct's default resource. */
  logicalId: (construct: { node: { defaultChild?: unknown } }) => string;
  cleanup: () => void;
}

/** The stack's own promises as cfn-guard rules (tables, queues, log groups, IAM). */
export const POLICY_RULES_DIR = join(REPO_ROOT, 'infra/policy');

/** The AWS Control Tower proactive rules that the cfn-guard plugin ships and runs by default. */
export const CONTROL_TOWER_RULES_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')),
  'rules/control-tower/cfn-guard',
);

/**
 * The Control Tower rules that can apply to the app: those that name one of its resource types.
 * cfn-guard reads and evaluates every rule file it is given, and most of the package's rules are
 * about services the stack does not use (RDS, EC2, ...): a rule that names none of the template's
 * types can only answer "not applicable", so leaving it out changes no finding and spares
 * cfn-guard most of its work. No rule file found is an error, not an empty check.
 */
export const controlTowerRulesFor = (app: App, rulesDir = CONTROL_TOWER_RULES_DIR): string[] => {
  const types = new Set(
    app.node
      .findAll()
      .filter(CfnResource.isCfnResource)
      .map((resource) => resource.cfnResourceType),
  );
  const files = existsSync(rulesDir)
    ? readdirSync(rulesDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.guard'))
    : [];
  if (files.length === 0) throw new Error(`No cfn-guard rules in ${rulesDir}: has the validator package moved them?`);
  return files
    .map((file) => join(rulesDir, file))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return [...types].some((type) => text.includes(`"${type}"`) || text.includes(`'${type}'`));
    });
};

/** cdk.json's context (feature flags, committed stages), which the CDK CLI hands to the app. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8'),
).context;

/**
 * The stack test's stage: every setting differs from its default, so that each one is seen to
 * reach the template; some are strings, as `-c key=value` gives them.
 */
export const STACK_TEST_CONTEXT = {
  stage: 'test',
  alarmEmail: 'ops@example.com',
  throttleRate: '17',
  throttleBurst: 33,
  credentialCacheSeconds: '42',
  policyCacheSeconds: '7',
  rateLimitPerSecond: '9',
  rateLimitBurst: 27,
  defaultInbox: 'NONE',
  defaultEmail: 'ALL',
  consumerMaxConcurrency: '7',
  logRetentionDays: '14',
  logLevel: 'DEBUG',
  linkThrottleRate: '11',
  linkThrottleBurst: 22,
  linksBaseUrl: 'https://links.example.com/prefs/',
};

const appContext = (context: Record<string, unknown>, bundle: boolean) => ({
  ...CDK_JSON_CONTEXT,
  ...context,
  ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
});

/** Resolved, not allocated: a construct may pin its logical id (overrideLogicalId). */
const logicalIdIn =
  (stack: Stack) =>
  (construct: { node: { defaultChild?: unknown } }): string =>
    stack.resolve((construct.node.defaultChild as CfnElement).logicalId);

/**
 * Builds the app exactly as `cdk synth` runs infra/app.ts: cdk.json's context, then the given
 * context on top, as `-c` flags would be. `bundle: false` skips esbuild (the CDK's own
 * `aws:cdk:bundling-stacks` switch) for tests that do not look at code. `guard: false` skips
 * cfn-guard, which evaluates the Control Tower rules in a child process, for a test whose
 * template another test already guards (the same stage's): see docs/development.md.
 */
export const synthService = (
  context: Record<string, unknown>,
  {
    bundle,
    guard = true,
    outdir = mkdtempSync(join(tmpdir(), 'cdk-test-')),
  }: { bundle: boolean; guard?: boolean; outdir?: string },
): Synthesized => {
  const { app, stack } = createServiceApp({ outdir, context: appContext(context, bundle) });
  // cfn-guard with the AWS Control Tower proactive rules and infra/policy/: like cdk-nag, a
  // finding fails the synthesis below unless acknowledged next to the resource with its reason.
  if (guard) {
    Validations.of(app).addPlugins(
      new CfnGuardValidator({
        controlTowerRulesEnabled: false,
        rules: [...controlTowerRulesFor(app), POLICY_RULES_DIR],
      }),
    );
  }
  const nagViolations = new AwsSolutionsChecks().validateScope(stack).violations;
  // Synthesizing runs the app's validation plugins too. They report to validation-report.json
  // (in a test run the CDK does not fail on it): any finding no acknowledgement covers fails here.
  const template = Template.fromStack(stack);
  const report = guard
    ? JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'))
    : { pluginReports: [] };
  const findings = (report.pluginReports as Json[]).flatMap((plugin) =>
    (plugin.violations as Json[]).map(
      (v) =>
        `${plugin.pluginName}: ${v.ruleName} on ${(v.violatingConstructs as Json[]).map((c) => c.constructPath).join(', ')}`,
    ),
  );
  if (findings.length > 0) throw new Error(`Unacknowledged policy findings:\n${findings.join('\n')}`);
  return {
    stack,
    template,
    outdir,
    nagViolations,
    logicalId: logicalIdIn(stack),
    cleanup: () => rmSync(outdir, { recursive: true, force: true }),
  };
};

/**
 * The stages synthesized once for the whole run, each by a child process the stack project's
 * global setup starts when a file first asks for it (test/infra/shared-synth-global.ts), with
 * cdk-nag and cfn-guard: the stack test's stage, bundled (its tests run the bundles), and
 * cdk.json's two stages, not bundled, for the files that read their templates' settings.
 */
export const SHARED_SYNTHS: Record<SharedSynthName, { context: Record<string, unknown>; bundle: boolean }> = {
  test: { context: STACK_TEST_CONTEXT, bundle: true },
  dev: { context: { stage: 'dev' }, bundle: false },
  prod: { context: { stage: 'prod' }, bundle: false },
};

/**
 * A shared synthesis (SHARED_SYNTHS), once its child process has written it: its template,
 * assembly and findings. The construct tree is built here again, without bundling or synthesis,
 * for what only it holds (logical ids of constructs, acknowledgements, the stack's properties).
 * Its cleanup leaves the shared assembly, which the global teardown removes.
 */
export const sharedSynth = async (name: SharedSynthName): Promise<Synthesized> => {
  const dir = process.env[SHARED_SYNTH_ENV];
  if (!dir) throw new Error(`No ${SHARED_SYNTH_ENV}: the stack project's global setup (jest.config.ts) sets it`);
  const files = sharedSynthFiles(dir, name);
  writeFileSync(files.request, '');
  while (!existsSync(files.result)) await sleep(200);
  const result = JSON.parse(readFileSync(files.result, 'utf8')) as SharedSynthResult;
  if (!result.ok) throw new Error(`The shared synthesis of ${name} failed:\n${result.error}`);
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-tree-'));
  const { stack } = createServiceApp({ outdir, context: appContext(SHARED_SYNTHS[name].context, false) });
  if (stack.stackName !== result.stackName)
    throw new Error(`Synthesized ${result.stackName}, built ${stack.stackName}`);
  const template = JSON.parse(readFileSync(join(files.assembly, `${result.stackName}.template.json`), 'utf8'));
  return {
    stack,
    template: Template.fromJSON(template),
    outdir: files.assembly,
    nagViolations: result.nagViolations,
    logicalId: logicalIdIn(stack),
    cleanup: () => rmSync(outdir, { recursive: true, force: true }),
  };
};

/** Template JSON is read as loosely typed data: the assertions are what checks its shape. */
// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation has no static type
export type Json = any;

export interface Resource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}
export type Resources = Record<string, Resource>;

/** Looks a resource up by logical id; a missing one fails the test with its id. */
export const resourceById = (resources: Resources, id: string): Resource => {
  const resource = resources[id];
  if (!resource) throw new Error(`No resource ${id} in the template`);
  return resource;
};

/** The single element of a list; fails the test when there are none or several. */
export const only = <T>(items: T[]): T => {
  if (items.length !== 1) throw new Error(`Expected exactly one, found ${items.length}`);
  return items[0] as T;
};

/** Readable summary of findings for a failing assertion. */
export const describeViolations = (violations: NagViolation[]): string[] =>
  violations.map(
    (v) => `${v.ruleName} (${v.severity}): ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
  );
