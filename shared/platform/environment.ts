import * as z from 'zod/mini';
import {
  BUILT_IN_DEFAULTS,
  type Channel,
  type DeliverySetting,
  deliverySetting,
  type FullChannelConfig,
  ONE_OF_DELIVERY_SETTINGS,
} from '#shared/api/channels.js';
import type { JobQueueName, QueueName, TableName } from './route.js';

/**
 * The one module that reads the functions' environment: every variable's name, and a typed
 * reader for each setting. The CDK stack and the local twin set the variables from the same
 * names. A required variable that is missing, or a setting out of its range, fails the cold
 * start with a message naming the variable and what it accepts.
 */
export const ENV = {
  configTable: 'CONFIG_TABLE_NAME',
  migrationsTable: 'MIGRATIONS_TABLE_NAME',
  credentialsTable: 'CREDENTIALS_TABLE_NAME',
  historyTable: 'HISTORY_TABLE_NAME',
  limitsTable: 'RATE_LIMITS_TABLE_NAME',
  /** The per-credential request rate a credential without its own gets (unset or 0: none). */
  rateLimitPerSecond: 'RATE_LIMIT_PER_SECOND',
  rateLimitBurst: 'RATE_LIMIT_BURST',
  /** How long a change stays in the history (whole days, default 365). */
  historyRetentionDays: 'HISTORY_RETENTION_DAYS',
  /** The EventBridge bus the change publisher puts events on. */
  eventBusName: 'EVENT_BUS_NAME',
  migrationQueueUrl: 'MIGRATION_QUEUE_URL',
  /** The queue's maxReceiveCount: the consumer marks a migration failed on the last attempt. */
  migrationMaxReceiveCount: 'MIGRATION_MAX_RECEIVE_COUNT',
  /** Optional (default 30 minutes): how long a migration may make no progress before the sweeper acts. */
  migrationStallLimitSeconds: 'MIGRATION_STALL_LIMIT_SECONDS',
  erasureQueueUrl: 'ERASURE_QUEUE_URL',
  /** The erasure queue's maxReceiveCount: the consumer marks an erasure failed on the last attempt. */
  erasureMaxReceiveCount: 'ERASURE_MAX_RECEIVE_COUNT',
  credentialCacheSeconds: 'CREDENTIAL_CACHE_TTL_SECONDS',
  /** How long a warm function keeps an organization's policy (config/get, resolve, set's locks). */
  policyCacheSeconds: 'POLICY_CACHE_SECONDS',
  defaultInbox: 'DEFAULT_INBOX',
  defaultEmail: 'DEFAULT_EMAIL',
  defaultSlack: 'DEFAULT_SLACK',
  /** Optional (default 1000): how long a DynamoDB or SQS connection may stay silent before the attempt is retried. */
  dependencyTimeoutMs: 'DEPENDENCY_TIMEOUT_MS',
  /** The secret holding the keys of the links in emails (its ARN, or the local stand-in's name). */
  linkKeysSecret: 'LINK_KEYS_SECRET_ID',
  /** Optional (default 60): how long a warm function keeps the link keys it read. */
  linkKeysCacheSeconds: 'LINK_KEYS_CACHE_SECONDS',
  /** Optional: the base URL of the links (a custom domain); by default the address the request came to. */
  linksBaseUrl: 'LINKS_BASE_URL',
  /** The webhooks queue (shared/webhooks/dispatcher.ts): events from the bus, and retries. */
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  /** Set by the local twin only: webhooks may call http and https loopback endpoints. Never deployed. */
  webhooksAllowLoopback: 'WEBHOOKS_ALLOW_LOOPBACK',
  /**
   * Optional (default `true`): whether the evidence of a change made from a link keeps the
   * client's IP address and user agent (`false`: neither is stored).
   */
  linkEvidenceClient: 'LINK_EVIDENCE_CLIENT',
  exportQueueUrl: 'EXPORT_QUEUE_URL',
  /** The export queue's maxReceiveCount: the consumer marks an export failed on the last attempt. */
  exportMaxReceiveCount: 'EXPORT_MAX_RECEIVE_COUNT',
  importQueueUrl: 'IMPORT_QUEUE_URL',
  /** The import queue's maxReceiveCount: the consumer marks an import failed on the last attempt. */
  importMaxReceiveCount: 'IMPORT_MAX_RECEIVE_COUNT',
  /** Optional (default 2000): the entry writes per second of one import, so that live traffic keeps its latency. */
  importWritesPerSecond: 'IMPORT_WRITES_PER_SECOND',
  /** The bucket of import and export files (contract 15.3). */
  filesBucket: 'FILES_BUCKET_NAME',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

/** The variable carrying each table's name. */
export const TABLE_ENV: Record<TableName, EnvName> = {
  config: ENV.configTable,
  migrations: ENV.migrationsTable,
  credentials: ENV.credentialsTable,
  history: ENV.historyTable,
  limits: ENV.limitsTable,
};

type Env = NodeJS.ProcessEnv;

/** Reads a required variable; a missing one fails the cold start with a clear message. */
const requireEnv = (name: EnvName, env: Env): string => {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

/**
 * An optional whole number from `min` to `max` (unset or empty: `fallback`), read as `Number`
 * reads text; anything else fails the cold start naming the variable and what it accepts.
 */
const wholeNumber = <F extends number | undefined>(
  name: EnvName,
  env: Env,
  { min, max, unit, fallback }: { min: number; max?: number; unit?: string; fallback: F },
): number | F => {
  const text = env[name];
  if (!text) return fallback;
  const value = Number(text);
  if (Number.isSafeInteger(value) && value >= min && value <= (max ?? Number.MAX_SAFE_INTEGER)) return value;
  const range = max === undefined ? `, at least ${min}` : ` from ${min} to ${max}`;
  throw new Error(`Environment variable ${name} must be a whole number${unit ? ` of ${unit}` : ''}${range}`);
};

export const tableName = (table: TableName, env: Env = process.env): string => requireEnv(TABLE_ENV[table], env);
const QUEUE_ENV: Record<QueueName, EnvName> = {
  migrations: ENV.migrationQueueUrl,
  erasures: ENV.erasureQueueUrl,
  webhooks: ENV.webhookQueueUrl,
  exports: ENV.exportQueueUrl,
  imports: ENV.importQueueUrl,
};
export const queueUrl = (queue: QueueName, env: Env = process.env): string => requireEnv(QUEUE_ENV[queue], env);
export const eventBusName = (env: Env = process.env): string => requireEnv(ENV.eventBusName, env);
export const filesBucketName = (env: Env = process.env): string => requireEnv(ENV.filesBucket, env);

/** The queue's maxReceiveCount: the delivery with this receive count is the last attempt. */
const RECEIVE_COUNT_ENV: Record<JobQueueName, EnvName> = {
  migrations: ENV.migrationMaxReceiveCount,
  erasures: ENV.erasureMaxReceiveCount,
  exports: ENV.exportMaxReceiveCount,
  imports: ENV.importMaxReceiveCount,
};
export const maxReceiveCount = (queue: JobQueueName, env: Env = process.env): number => {
  const name = RECEIVE_COUNT_ENV[queue];
  const count = wholeNumber(name, env, { min: 1, fallback: undefined });
  if (count === undefined) throw new Error(`Environment variable ${name} must be a whole number, at least 1`);
  return count;
};

/**
 * Parses an optional variable (unset or empty means the schema's default); an invalid value
 * fails the cold start naming the variable and what it accepts.
 */
const parseEnv = <T>(name: EnvName, schema: z.ZodMiniType<T>, accepts: string, env: Env): T => {
  const parsed = schema.safeParse(env[name] || undefined);
  if (parsed.success) return parsed.data;
  throw new Error(`Environment variable ${name} must be ${accepts}`);
};

export const DEFAULT_CREDENTIAL_CACHE_SECONDS = 60;
export const MAX_CREDENTIAL_CACHE_SECONDS = 3600;

/** How long a warm function trusts a looked-up credential (revocation takes effect within it). */
export const credentialCacheSeconds = (env: Env = process.env): number =>
  wholeNumber(ENV.credentialCacheSeconds, env, {
    min: 0,
    max: MAX_CREDENTIAL_CACHE_SECONDS,
    unit: 'seconds',
    fallback: DEFAULT_CREDENTIAL_CACHE_SECONDS,
  });

export const DEFAULT_IMPORT_WRITES_PER_SECOND = 2000;
export const MAX_IMPORT_WRITES_PER_SECOND = 40_000;

/** One import's entry writes per second (a deployment setting): what live traffic leaves to imports. */
export const importWritesPerSecond = (env: Env = process.env): number =>
  wholeNumber(ENV.importWritesPerSecond, env, {
    min: 1,
    max: MAX_IMPORT_WRITES_PER_SECOND,
    unit: 'writes per second',
    fallback: DEFAULT_IMPORT_WRITES_PER_SECOND,
  });

export const DEFAULT_POLICY_CACHE_SECONDS = 10;
export const MAX_POLICY_CACHE_SECONDS = 300;

/** How long a warm function keeps an organization's policy: a policy change reaches every user within it. */
export const policyCacheSeconds = (env: Env = process.env): number =>
  wholeNumber(ENV.policyCacheSeconds, env, {
    min: 0,
    max: MAX_POLICY_CACHE_SECONDS,
    unit: 'seconds',
    fallback: DEFAULT_POLICY_CACHE_SECONDS,
  });

/**
 * The deployment's request rate per credential (a credential may carry its own): unset or a rate
 * of 0 means no limit, as in the local twin unless a developer sets one.
 */
export const defaultRateLimit = (env: Env = process.env): { perSecond: number; burst: number } | undefined => {
  const rate = { min: 0, max: 100_000, unit: 'requests per second', fallback: 0 };
  const perSecond = wholeNumber(ENV.rateLimitPerSecond, env, rate);
  if (perSecond === 0) return undefined;
  const burst = wholeNumber(ENV.rateLimitBurst, env, {
    min: 1,
    max: 1_000_000,
    unit: 'requests',
    fallback: perSecond * 2,
  });
  return { perSecond, burst };
};

export const DEFAULT_DEPENDENCY_TIMEOUT_MS = 1_000;

/**
 * A connection that cannot be opened, or stops answering, is given up after this long and the
 * attempt retried (the SDK's own socket default is 300 s): one silent socket must not hold a
 * request until the function's timeout. Six attempts stay within the 10 s API function timeout.
 * The local twin sets it longer: DynamoDB Local on a busy laptop can be slow, and a retry there
 * only adds to its load.
 */
export const dependencyTimeoutMs = (env: Env = process.env): number =>
  wholeNumber(ENV.dependencyTimeoutMs, env, {
    min: 1,
    max: 60_000,
    unit: 'milliseconds',
    fallback: DEFAULT_DEPENDENCY_TIMEOUT_MS,
  });

/** The deployment's defaults (the last layer of every read): built in unless a stage overrides a channel. */
export const deliveryDefaults = (env: Env = process.env): FullChannelConfig => {
  const read = (channel: Channel, name: EnvName): DeliverySetting =>
    parseEnv(name, z._default(deliverySetting, BUILT_IN_DEFAULTS[channel]), ONE_OF_DELIVERY_SETTINGS, env);
  return {
    inbox: read('inbox', ENV.defaultInbox),
    email: read('email', ENV.defaultEmail),
    slack: read('slack', ENV.defaultSlack),
  };
};

export const DEFAULT_HISTORY_RETENTION_DAYS = 365;
/** Ten years: longer is a mistake, not a retention policy. */
export const MAX_HISTORY_RETENTION_DAYS = 3650;

export const historyRetentionDays = (env: Env = process.env): number =>
  wholeNumber(ENV.historyRetentionDays, env, {
    min: 1,
    max: MAX_HISTORY_RETENTION_DAYS,
    unit: 'days',
    fallback: DEFAULT_HISTORY_RETENTION_DAYS,
  });

export const secretId = (_secret: 'linkKeys', env: Env = process.env): string => requireEnv(ENV.linkKeysSecret, env);

export const DEFAULT_LINK_KEYS_CACHE_SECONDS = 60;

/**
 * How long a warm function keeps the link keys (Powertools Parameters' maxAge): a key added to the
 * secret is known to every function within it, which is what the rotation waits for.
 */
export const linkKeysCacheSeconds = (env: Env = process.env): number =>
  wholeNumber(ENV.linkKeysCacheSeconds, env, {
    min: 0,
    max: 900,
    unit: 'seconds',
    fallback: DEFAULT_LINK_KEYS_CACHE_SECONDS,
  });

/** Whether a link change's evidence keeps the client's address and user agent: unset or `true` yes, `false` no. */
export const linkEvidenceClient = (env: Env = process.env): boolean => {
  const text = env[ENV.linkEvidenceClient];
  if (!text || text === 'true') return true;
  if (text === 'false') return false;
  throw new Error(`Environment variable ${ENV.linkEvidenceClient} must be true or false`);
};

/** The links' base URL when the stage names one (a custom domain), without a trailing slash. */
export const linksBaseUrl = (env: Env = process.env): string | undefined =>
  parseEnv(
    ENV.linksBaseUrl,
    z.optional(
      z.pipe(
        z.url({ protocol: /^https?$/ }),
        z.transform((url: string) => url.replace(/\/+$/, '')),
      ),
    ),
    'an http(s) URL',
    env,
  );

/** Whether webhooks may call loopback endpoints: only where the local twin says so (`1`). */
export const webhooksAllowLoopback = (env: Env = process.env): boolean => env[ENV.webhooksAllowLoopback] === '1';

/** MIGRATION_STALL_LIMIT_SECONDS: unset in a deployment (the job engine's default); the twin's tests shorten it. */
export const stallLimitSeconds = (env: Env = process.env): number | undefined =>
  wholeNumber(ENV.migrationStallLimitSeconds, env, { min: 1, unit: 'seconds', fallback: undefined });

/** The Powertools service name (the stack sets it): logs, metrics and traces carry it. */
export const serviceName = (env: Env = process.env): string =>
  env.POWERTOOLS_SERVICE_NAME ?? 'notification-preferences';

/** Outside a deployment (the twin, tests) the metrics go to this namespace; the stack names one per stage. */
export const metricsNamespace = (env: Env = process.env): string =>
  env.POWERTOOLS_METRICS_NAMESPACE || 'NotificationPreferences-local';

/**
 * Whether metrics are recorded at all: in Lambda (AWS_EXECUTION_ENV is set) always, and Powertools
 * then honours POWERTOOLS_METRICS_DISABLED; elsewhere (the local twin, tests, tools), where EMF
 * lines would only clutter the output, only when POWERTOOLS_METRICS_DISABLED is set (`false` shows them).
 */
export const metricsRecorded = (env: Env = process.env): boolean =>
  Boolean(env.AWS_EXECUTION_ENV) || env.POWERTOOLS_METRICS_DISABLED !== undefined;
