import * as z from 'zod/mini';
import {
  BUILT_IN_DEFAULTS,
  type Channel,
  type DeliverySetting,
  deliverySetting,
  type FullChannelConfig,
  ONE_OF_DELIVERY_SETTINGS,
} from '#shared/api/channels.js';
import type { QueueName, TableName } from './route.js';

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
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

/** Variables Lambda and Powertools define, read here too so that no other module reads the environment. */
const PLATFORM = {
  /** Set by Lambda in every function: its runtime, e.g. AWS_Lambda_nodejs24.x. */
  executionEnv: 'AWS_EXECUTION_ENV',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  metricsDisabled: 'POWERTOOLS_METRICS_DISABLED',
} as const;

/** The variable carrying each table's name, queue's URL and queue's maxReceiveCount. */
export const TABLE_ENV: Record<TableName, EnvName> = {
  config: ENV.configTable,
  migrations: ENV.migrationsTable,
  credentials: ENV.credentialsTable,
  history: ENV.historyTable,
  limits: ENV.limitsTable,
};
export const QUEUE_ENV: Record<QueueName, EnvName> = {
  migrations: ENV.migrationQueueUrl,
  erasures: ENV.erasureQueueUrl,
};
const MAX_RECEIVE_ENV: Record<QueueName, EnvName> = {
  migrations: ENV.migrationMaxReceiveCount,
  erasures: ENV.erasureMaxReceiveCount,
};

type Env = NodeJS.ProcessEnv;

/** Reads a required variable; a missing one fails the cold start with a clear message. */
export const requireEnv = (name: EnvName, env: Env = process.env): string => {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
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

/**
 * An optional whole number from `min` to `max` (unset or empty: `fallback`), read as `Number`
 * reads text (so blanks alone read 0, as they did through zod's coercion). Without zod: each
 * function reads several at its cold start, and a schema per setting cost more CPU there than
 * this check.
 */
const parseWholeNumber = <F extends number | undefined>(
  name: EnvName,
  { min, max = Number.MAX_SAFE_INTEGER, fallback }: { min: number; max?: number; fallback: F },
  accepts: string,
  env: Env,
): number | F => {
  const text = env[name];
  if (!text) return fallback;
  const value = Number(text);
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  throw new Error(`Environment variable ${name} must be ${accepts}`);
};

/** A reader of an optional whole number from `min` to `max` (unset: `fallback`); `unit` names it in the error. */
const boundedWholeNumber =
  (name: EnvName, { min, max, fallback, unit }: { min: number; max: number; fallback: number; unit: string }) =>
  (env: Env = process.env): number =>
    parseWholeNumber(name, { min, max, fallback }, `a whole number of ${unit} from ${min} to ${max}`, env);

export const tableName = (table: TableName, env: Env = process.env): string => requireEnv(TABLE_ENV[table], env);
export const queueUrl = (queue: QueueName, env: Env = process.env): string => requireEnv(QUEUE_ENV[queue], env);
export const eventBusName = (env: Env = process.env): string => requireEnv(ENV.eventBusName, env);

/** The queue's maxReceiveCount: the delivery with this receive count is the last attempt. */
export const maxReceiveCount = (queue: QueueName, env: Env = process.env): number => {
  const accepts = 'a whole number, at least 1';
  const count = parseWholeNumber(MAX_RECEIVE_ENV[queue], { min: 1, fallback: undefined }, accepts, env);
  if (count === undefined) throw new Error(`Environment variable ${MAX_RECEIVE_ENV[queue]} must be ${accepts}`);
  return count;
};

export const DEFAULT_CREDENTIAL_CACHE_SECONDS = 60;
export const MAX_CREDENTIAL_CACHE_SECONDS = 3600;

/** How long a warm function trusts a looked-up credential (revocation takes effect within it). */
export const credentialCacheSeconds = boundedWholeNumber(ENV.credentialCacheSeconds, {
  min: 0,
  max: MAX_CREDENTIAL_CACHE_SECONDS,
  fallback: DEFAULT_CREDENTIAL_CACHE_SECONDS,
  unit: 'seconds',
});

export const DEFAULT_POLICY_CACHE_SECONDS = 10;
export const MAX_POLICY_CACHE_SECONDS = 300;

/** How long a warm function keeps an organization's policy: a policy change reaches every user within it. */
export const policyCacheSeconds = boundedWholeNumber(ENV.policyCacheSeconds, {
  min: 0,
  max: MAX_POLICY_CACHE_SECONDS,
  fallback: DEFAULT_POLICY_CACHE_SECONDS,
  unit: 'seconds',
});

/**
 * The deployment's request rate per credential (a credential may carry its own): unset or a rate
 * of 0 means no limit, as in the local twin unless a developer sets one.
 */
export const defaultRateLimit = (env: Env = process.env): { perSecond: number; burst: number } | undefined => {
  const perSecond = parseWholeNumber(
    ENV.rateLimitPerSecond,
    { min: 0, max: 100_000, fallback: 0 },
    'a whole number of requests per second from 0 to 100000',
    env,
  );
  if (perSecond === 0) return undefined;
  const burst = parseWholeNumber(
    ENV.rateLimitBurst,
    { min: 1, max: 1_000_000, fallback: perSecond * 2 },
    'a whole number of requests from 1 to 1000000',
    env,
  );
  return { perSecond, burst };
};

export const DEFAULT_DEPENDENCY_TIMEOUT_MS = 1_000;
export const MAX_DEPENDENCY_TIMEOUT_MS = 60_000;

/**
 * A connection that cannot be opened, or stops answering, is given up after this long and the
 * attempt retried (the SDK's own socket default is 300 s): one silent socket must not hold a
 * request until the function's timeout. Six attempts stay within the 10 s API function timeout.
 * The deployed functions keep this default; the local twin sets it longer, since DynamoDB Local
 * on a busy laptop can take more than a second and a retry there only adds to its load.
 */
export const dependencyTimeoutMs = boundedWholeNumber(ENV.dependencyTimeoutMs, {
  min: 1,
  max: MAX_DEPENDENCY_TIMEOUT_MS,
  fallback: DEFAULT_DEPENDENCY_TIMEOUT_MS,
  unit: 'milliseconds',
});

const DEFAULT_ENV: Record<Channel, EnvName> = {
  inbox: ENV.defaultInbox,
  email: ENV.defaultEmail,
  slack: ENV.defaultSlack,
};

/** The deployment's defaults (the last layer of every read): built in unless a stage overrides a channel. */
export const deliveryDefaults = (env: Env = process.env): FullChannelConfig => {
  const read = (channel: Channel): DeliverySetting =>
    parseEnv(
      DEFAULT_ENV[channel],
      z._default(deliverySetting, BUILT_IN_DEFAULTS[channel]),
      ONE_OF_DELIVERY_SETTINGS,
      env,
    );
  return { inbox: read('inbox'), email: read('email'), slack: read('slack') };
};

export const DEFAULT_HISTORY_RETENTION_DAYS = 365;
/** Ten years: longer is a mistake, not a retention policy. */
export const MAX_HISTORY_RETENTION_DAYS = 3650;

export const historyRetentionDays = boundedWholeNumber(ENV.historyRetentionDays, {
  min: 1,
  max: MAX_HISTORY_RETENTION_DAYS,
  fallback: DEFAULT_HISTORY_RETENTION_DAYS,
  unit: 'days',
});

export const secretId = (_secret: 'linkKeys', env: Env = process.env): string => requireEnv(ENV.linkKeysSecret, env);

export const DEFAULT_LINK_KEYS_CACHE_SECONDS = 60;
export const MAX_LINK_KEYS_CACHE_SECONDS = 900;

/**
 * How long a warm function keeps the link keys (Powertools Parameters' maxAge): a key added to the
 * secret is known to every function within it, which is what the rotation waits for.
 */
export const linkKeysCacheSeconds = boundedWholeNumber(ENV.linkKeysCacheSeconds, {
  min: 0,
  max: MAX_LINK_KEYS_CACHE_SECONDS,
  fallback: DEFAULT_LINK_KEYS_CACHE_SECONDS,
  unit: 'seconds',
});

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

/** MIGRATION_STALL_LIMIT_SECONDS: unset in a deployment (the job engine's default); the twin's tests shorten it. */
export const stallLimitSeconds = (env: Env = process.env): number | undefined =>
  parseWholeNumber(
    ENV.migrationStallLimitSeconds,
    { min: 1, fallback: undefined },
    'a whole number of seconds, at least 1',
    env,
  );

/** In a Lambda function (Lambda sets AWS_EXECUTION_ENV); the twin and the tests are not. */
export const inLambda = (env: Env = process.env): boolean => Boolean(env[PLATFORM.executionEnv]);

/** The Powertools service name (the stack sets it): logs, metrics and traces carry it. */
export const serviceName = (env: Env = process.env): string => env[PLATFORM.serviceName] ?? 'notification-preferences';

/** Outside a deployment (the twin, tests) the metrics go to this namespace; the stack names one per stage. */
export const DEFAULT_METRICS_NAMESPACE = 'NotificationPreferences-local';

export const metricsNamespace = (env: Env = process.env): string =>
  env[PLATFORM.metricsNamespace] || DEFAULT_METRICS_NAMESPACE;

/**
 * Whether metrics are recorded at all: in Lambda always, and Powertools then honours
 * POWERTOOLS_METRICS_DISABLED; elsewhere (the local twin, tests, tools), where EMF lines would
 * only clutter the output, only when POWERTOOLS_METRICS_DISABLED is set (`false` shows them).
 */
export const metricsRecorded = (env: Env = process.env): boolean =>
  inLambda(env) || env[PLATFORM.metricsDisabled] !== undefined;
