import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { z } from 'zod';
import { BUILT_IN_DEFAULTS, deliverySetting } from '#shared/api/channels.js';
import {
  DEFAULT_CREDENTIAL_CACHE_SECONDS,
  DEFAULT_HISTORY_RETENTION_DAYS,
  DEFAULT_IMPORT_WRITES_PER_SECOND,
  DEFAULT_POLICY_CACHE_SECONDS,
  MAX_CREDENTIAL_CACHE_SECONDS,
  MAX_HISTORY_RETENTION_DAYS,
  MAX_IMPORT_WRITES_PER_SECOND,
  MAX_POLICY_CACHE_SECONDS,
} from '#shared/platform/environment.js';

/**
 * Deployment settings. A stage listed under `context.stages` in cdk.json is deployed exactly as
 * committed there, so a later `cdk deploy -c stage=prod` cannot drop a setting someone once
 * passed with `-c`. Any other stage name is an ad-hoc stage (a branch, a test) whose settings
 * come from `-c key=value` flags, each with a default.
 */

/** The context key under which cdk.json commits the settings of each named stage. */
export const STAGES_CONTEXT_KEY = 'stages';

// `-c key=value` on the command line always gives strings, cdk.json may give numbers:
// numbers are coerced, and an empty string means "not set".
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
const integer = (min: number, max: number, fallback: number) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max).default(fallback));

const RETENTION_VALUES = new Set<number>(Object.values(RetentionDays).filter((v) => typeof v === 'number'));

const stageName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,19}$/, 'lowercase letters, digits and dashes, starting with a letter, at most 20');

/** The settings of one stage, whatever their source. */
const stageSettingsSchema = z.object({
  /**
   * Keep the data: tables and log groups survive stack deletion (and a failed update), tables
   * refuse DeleteTable, and the stack has termination protection. Only in cdk.json.
   */
  protectData: z.boolean().default(false),
  /** Account and region the stage deploys to; required for a protected stage. */
  account: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\d{12}$/, 'a 12-digit AWS account id')
      .optional(),
  ),
  region: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'an AWS region such as eu-west-1')
      .optional(),
  ),
  /** Notification defaults that config/get reports for channels nobody set (docs/api.md, config/get). */
  defaultInbox: z.preprocess(unsetIfEmpty, z._default(deliverySetting, BUILT_IN_DEFAULTS.inbox)),
  defaultEmail: z.preprocess(unsetIfEmpty, z._default(deliverySetting, BUILT_IN_DEFAULTS.email)),
  defaultSlack: z.preprocess(unsetIfEmpty, z._default(deliverySetting, BUILT_IN_DEFAULTS.slack)),
  /** How long a warm function trusts a looked-up credential; bounds how late a revocation bites. */
  credentialCacheSeconds: integer(0, MAX_CREDENTIAL_CACHE_SECONDS, DEFAULT_CREDENTIAL_CACHE_SECONDS),
  /** How long a warm function keeps an organization's policy; bounds how late a policy change reaches resolve. */
  policyCacheSeconds: integer(0, MAX_POLICY_CACHE_SECONDS, DEFAULT_POLICY_CACHE_SECONDS),
  /** How long a change stays in the history before DynamoDB expires it (docs/api.md, config/history). */
  historyRetentionDays: integer(1, MAX_HISTORY_RETENTION_DAYS, DEFAULT_HISTORY_RETENTION_DAYS),
  /** API stage throttling: steady requests per second and burst, over all callers. */
  throttleRate: integer(1, 10_000, 50),
  throttleBurst: integer(1, 5_000, 100),
  /**
   * Each credential's own request rate and burst (a credential may carry others): below the
   * stage's, so that one caller cannot take every other's share. 0 turns the limit off.
   */
  rateLimitPerSecond: integer(0, 100_000, 20),
  rateLimitBurst: integer(1, 1_000_000, 40),
  /**
   * Throttling of each public route of the links in emails (`/u/...`, `/p/...`), apart from the
   * API's: mail scanners open every link of a bulk mail, and must not use up what the API's callers
   * share. Per route, steady requests per second and burst.
   */
  linkThrottleRate: integer(1, 10_000, 50),
  linkThrottleBurst: integer(1, 5_000, 200),
  /**
   * Where the links of emails point (a custom domain mapped to the API, with its base path if any):
   * by default the address links/create was called on.
   */
  linksBaseUrl: z.preprocess(
    unsetIfEmpty,
    z
      .url({ protocol: /^https$/, error: 'an https:// URL' })
      .refine((url) => !/[?#]/.test(url), 'a URL without query or fragment')
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
  ),
  /**
   * Whether the evidence of a change made from a link in an email keeps the client's IP address
   * and user agent (docs/api.md, Consent evidence): `false` stores neither.
   */
  linkEvidenceClient: z.preprocess(
    (value) => (value === 'true' ? true : value === 'false' ? false : unsetIfEmpty(value)),
    z.boolean().default(true),
  ),
  /** One import's entry writes per second, so that live traffic keeps its latency (docs/operations.md). */
  importWritesPerSecond: integer(1, MAX_IMPORT_WRITES_PER_SECOND, DEFAULT_IMPORT_WRITES_PER_SECOND),
  /** Lambda's minimum for an SQS event source is 2. */
  consumerMaxConcurrency: integer(2, 1_000, 5),
  /**
   * The account's Lambda concurrency quota in the stage's region (1,000 unless raised; new
   * accounts may have less): the concurrency alarm fires at 80 % of it.
   */
  accountConcurrencyLimit: integer(10, 1_000_000, 1_000),
  /** Alarm notifications go to this address (SNS email subscription); required for a protected stage. */
  alarmEmail: z.preprocess(unsetIfEmpty, z.email().optional()),
  logLevel: z.preprocess(unsetIfEmpty, z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO')),
  logRetentionDays: z.preprocess(
    unsetIfEmpty,
    z.coerce
      .number()
      .refine((days) => RETENTION_VALUES.has(days), 'must be a CloudWatch Logs retention value (1, 3, 5, 7, 14, 30, …)')
      .default(RetentionDays.ONE_MONTH),
  ),
});

/**
 * A stage as committed in cdk.json: unknown keys are typos, and refused. A protected stage
 * must say whom its alarms reach and where it lives (a deploy with other credentials or
 * another AWS_REGION would otherwise create a second, empty copy of its data elsewhere).
 */
const committedStageSchema = z.strictObject(stageSettingsSchema.shape).superRefine((settings, ctx) => {
  if (!settings.protectData) return;
  for (const key of ['alarmEmail', 'account', 'region'] as const) {
    if (settings[key] === undefined) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'required for a stage with protectData' });
    }
  }
});

export type ServiceConfig = z.infer<typeof stageSettingsSchema> & { stage: string };

type SettingKey = keyof z.infer<typeof stageSettingsSchema>;
const SETTING_KEYS = Object.keys(stageSettingsSchema.shape) as SettingKey[];

/** Keys accepted with `-c key=value`: the stage, and the settings of an ad-hoc stage (never protectData). */
export const CONFIG_KEYS: (keyof ServiceConfig)[] = ['stage', ...SETTING_KEYS.filter((key) => key !== 'protectData')];

/** A configuration problem, told in one line (infra/app.ts prints it without a stack trace). */
export class ServiceConfigError extends Error {
  override name = 'ServiceConfigError';
}

const describeIssues = (where: string, error: z.ZodError): string =>
  `${where}: ${error.issues.map((issue) => `${issue.path.join('.') || '(value)'}: ${issue.message}`).join('; ')}`;

/** One of account and region alone would pin nothing (the stack takes both or neither). */
const pinnedTogether = (config: ServiceConfig): ServiceConfig => {
  if ((config.account === undefined) !== (config.region === undefined)) {
    throw new ServiceConfigError(`Invalid settings of stage ${config.stage}: account and region go together`);
  }
  return config;
};

/**
 * The configuration of one deployment from CDK context values: `stage` (default `dev`),
 * `stages` (cdk.json) and, for an ad-hoc stage, the setting keys themselves.
 */
export const parseServiceConfig = (context: Record<string, unknown>): ServiceConfig => {
  const stagesInput = context[STAGES_CONTEXT_KEY] ?? {};
  const stages = z.record(stageName, z.unknown()).safeParse(stagesInput);
  if (!stages.success)
    throw new ServiceConfigError(describeIssues(`Invalid cdk.json context.${STAGES_CONTEXT_KEY}`, stages.error));
  const committedNames = Object.keys(stages.data);

  const stage = z.preprocess(unsetIfEmpty, stageName.default('dev')).safeParse(context.stage);
  if (!stage.success) {
    const known = committedNames.length ? ` (stages in cdk.json: ${committedNames.join(', ')})` : '';
    throw new ServiceConfigError(
      `Invalid CDK context: stage: ${stage.error.issues[0]?.message}, got ${JSON.stringify(context.stage)}${known}`,
    );
  }
  const flags = SETTING_KEYS.filter((key) => context[key] !== undefined);
  // A setting spelled in another case (-c throttlerate=20) would be ignored without a word.
  for (const given of Object.keys(context)) {
    const meant = [...SETTING_KEYS, 'stage'].find((key) => key !== given && key.toLowerCase() === given.toLowerCase());
    if (meant) throw new ServiceConfigError(`Invalid CDK context: ${given} is not a setting; did you mean ${meant}?`);
  }

  if (Object.hasOwn(stages.data, stage.data)) {
    // A committed stage is exactly what cdk.json says: a -c setting would be forgotten by the
    // next deploy that leaves it out.
    if (flags.length > 0) {
      throw new ServiceConfigError(
        `Stage ${stage.data} is committed in cdk.json (context.${STAGES_CONTEXT_KEY}.${stage.data}): ` +
          `change ${flags.join(', ')} there, not with -c`,
      );
    }
    const settings = committedStageSchema.safeParse(stages.data[stage.data] ?? {});
    if (!settings.success) {
      throw new ServiceConfigError(
        describeIssues(`Invalid cdk.json context.${STAGES_CONTEXT_KEY}.${stage.data}`, settings.error),
      );
    }
    return pinnedTogether({ stage: stage.data, ...settings.data });
  }

  if (flags.includes('protectData')) {
    throw new ServiceConfigError(
      `Invalid CDK context: protectData: a protected stage must be committed in cdk.json (context.${STAGES_CONTEXT_KEY}.${stage.data})`,
    );
  }
  const settings = stageSettingsSchema.safeParse(Object.fromEntries(flags.map((key) => [key, context[key]])));
  if (!settings.success) throw new ServiceConfigError(describeIssues('Invalid CDK context', settings.error));
  return pinnedTogether({ stage: stage.data, ...settings.data });
};

/** Reads the configuration from a construct's context (app context, cdk.json, -c flags). */
export const readServiceConfig = (node: Node): ServiceConfig =>
  parseServiceConfig({
    // Every key given, so that a near miss of a setting's name is named (CDK's own keys never are).
    ...node.getAllContext(),
    ...Object.fromEntries(
      [STAGES_CONTEXT_KEY, 'protectData', ...CONFIG_KEYS].map((key) => [key, node.tryGetContext(key)]),
    ),
  });
