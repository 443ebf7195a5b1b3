import { z } from 'zod';

/**
 * Names of every environment variable the functions read. The CDK stack and the local
 * server set them from this same object, so a name exists in one place only.
 */
export const ENV = {
  configTable: 'CONFIG_TABLE_NAME',
  migrationsTable: 'MIGRATIONS_TABLE_NAME',
  credentialsTable: 'CREDENTIALS_TABLE_NAME',
  migrationQueueUrl: 'MIGRATION_QUEUE_URL',
  /** The queue's maxReceiveCount: the consumer marks a migration failed on the last attempt. */
  migrationMaxReceiveCount: 'MIGRATION_MAX_RECEIVE_COUNT',
  credentialCacheSeconds: 'CREDENTIAL_CACHE_TTL_SECONDS',
  defaultInbox: 'DEFAULT_INBOX',
  defaultEmail: 'DEFAULT_EMAIL',
  defaultSlack: 'DEFAULT_SLACK',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

/** Reads a required variable; a missing one fails the cold start with a clear message. */
export const requireEnv = (name: EnvName, env: NodeJS.ProcessEnv = process.env): string => {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

export const DEFAULT_CREDENTIAL_CACHE_SECONDS = 60;

export const credentialCacheSeconds = (env: NodeJS.ProcessEnv = process.env): number =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(DEFAULT_CREDENTIAL_CACHE_SECONDS)
    .parse(env[ENV.credentialCacheSeconds] || undefined);
