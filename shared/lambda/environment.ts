import * as z from 'zod/mini';

/**
 * Names of every environment variable the functions read. The CDK stack and the local
 * server set them from this same object, so a name exists in one place only.
 */
export const ENV = {
  configTable: 'CONFIG_TABLE_NAME',
  migrationsTable: 'MIGRATIONS_TABLE_NAME',
  credentialsTable: 'CREDENTIALS_TABLE_NAME',
  historyTable: 'HISTORY_TABLE_NAME',
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
  defaultInbox: 'DEFAULT_INBOX',
  defaultEmail: 'DEFAULT_EMAIL',
  defaultSlack: 'DEFAULT_SLACK',
  /** Optional (default 1000): how long a DynamoDB or SQS connection may stay silent before the attempt is retried. */
  dependencyTimeoutMs: 'DEPENDENCY_TIMEOUT_MS',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

/** Reads a required variable; a missing one fails the cold start with a clear message. */
export const requireEnv = (name: EnvName, env: NodeJS.ProcessEnv = process.env): string => {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

/**
 * Parses an optional variable (unset or empty means the schema's default); an invalid value
 * fails the cold start naming the variable and what it accepts.
 */
export const parseEnv = <T>(
  name: EnvName,
  schema: z.ZodMiniType<T>,
  accepts: string,
  env: NodeJS.ProcessEnv = process.env,
): T => {
  const parsed = schema.safeParse(env[name] || undefined);
  if (parsed.success) return parsed.data;
  throw new Error(`Environment variable ${name} must be ${accepts}`);
};

export const DEFAULT_CREDENTIAL_CACHE_SECONDS = 60;
export const MAX_CREDENTIAL_CACHE_SECONDS = 3600;

const cacheSeconds = z._default(
  z.pipe(z.coerce.number(), z.int().check(z.minimum(0), z.maximum(MAX_CREDENTIAL_CACHE_SECONDS))),
  DEFAULT_CREDENTIAL_CACHE_SECONDS,
);

export const credentialCacheSeconds = (env: NodeJS.ProcessEnv = process.env): number =>
  parseEnv(
    ENV.credentialCacheSeconds,
    cacheSeconds,
    `a whole number of seconds from 0 to ${MAX_CREDENTIAL_CACHE_SECONDS}`,
    env,
  );
