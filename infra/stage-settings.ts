import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { z } from 'zod';
import { DEFAULT_CREDENTIAL_CACHE_SECONDS, MAX_CREDENTIAL_CACHE_SECONDS } from '#shared/lambda/environment.js';
import { BUILT_IN_DEFAULTS, deliverySetting } from '#shared/preferences/model.js';

/** The stage whose data must survive `cdk destroy` (tables retained, deletion protection on). */
export const PRODUCTION_STAGE = 'prod';

// `-c key=value` on the command line always gives strings, cdk.json may give numbers:
// numbers are coerced, and an empty string means "not set".
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
const integer = (min: number, max: number, fallback: number) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max).default(fallback));

const RETENTION_VALUES = new Set<number>(Object.values(RetentionDays).filter((v) => typeof v === 'number'));

/**
 * Every setting of a deployment, read from CDK context (`cdk deploy -c key=value`). Each key
 * has a default, so a bare `cdk synth` works; an invalid value stops synthesis with a message.
 */
export const serviceConfigSchema = z.object({
  /** Deployment name: part of the stack name; `prod` keeps data on teardown. */
  stage: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,19}$/, 'lowercase letters, digits and dashes, starting with a letter, at most 20')
      .default('dev'),
  ),
  /** Notification defaults that config/get reports for channels nobody set (docs/api.md, config/get). */
  defaultInbox: z.preprocess(unsetIfEmpty, z._default(deliverySetting, BUILT_IN_DEFAULTS.inbox)),
  defaultEmail: z.preprocess(unsetIfEmpty, z._default(deliverySetting, BUILT_IN_DEFAULTS.email)),
  defaultSlack: z.preprocess(unsetIfEmpty, z._default(deliverySetting, BUILT_IN_DEFAULTS.slack)),
  /** How long a warm function trusts a looked-up credential; bounds how late a revocation bites. */
  credentialCacheSeconds: integer(0, MAX_CREDENTIAL_CACHE_SECONDS, DEFAULT_CREDENTIAL_CACHE_SECONDS),
  /** API stage throttling: steady requests per second and burst, over all callers. */
  throttleRate: integer(1, 10_000, 50),
  throttleBurst: integer(1, 5_000, 100),
  /** Lambda's minimum for an SQS event source is 2. */
  consumerMaxConcurrency: integer(2, 1_000, 5),
  /** Alarm notifications go to this address (SNS email subscription) when set. */
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

export type ServiceConfig = z.infer<typeof serviceConfigSchema>;

export const CONFIG_KEYS = Object.keys(serviceConfigSchema.shape) as (keyof ServiceConfig)[];

/** Parses a plain object of context values; throws one error that names every bad key. */
export const parseServiceConfig = (context: Record<string, unknown>): ServiceConfig => {
  const parsed = serviceConfigSchema.safeParse(context);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid CDK context: ${issues.join('; ')}`);
  }
  return parsed.data;
};

/** Reads the configuration keys from a construct's context (app context, cdk.json, -c flags). */
export const readServiceConfig = (node: Node): ServiceConfig =>
  parseServiceConfig(Object.fromEntries(CONFIG_KEYS.map((key) => [key, node.tryGetContext(key)])));

export const isProductionStage = (config: ServiceConfig): boolean => config.stage === PRODUCTION_STAGE;
