import { ENV, type EnvName } from '#shared/lambda/environment.js';
import { TOMBSTONE_TTL_ATTRIBUTE } from '#shared/preferences/tombstone.js';

/**
 * The three DynamoDB tables: key schema and the environment variable that carries each
 * table's name. The CDK stack and the local runtime both create tables from this list.
 */
export interface TableDefinition {
  /** CDK construct id. */
  id: string;
  /** Table name in the local runtime (CDK lets CloudFormation name deployed tables). */
  localName: string;
  env: EnvName;
  partitionKey: string;
  sortKey?: string;
  /** Number attribute (epoch seconds) after which DynamoDB deletes an item, if the table has one. */
  ttlAttribute?: string;
}

export const TABLES = {
  /**
   * Notification config entries (see shared/preferences/keys.ts for the key encoding). Only
   * tombstones (shared/preferences/tombstone.ts) carry the TTL attribute.
   */
  config: {
    id: 'ConfigTable',
    localName: 'config',
    env: ENV.configTable,
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: TOMBSTONE_TTL_ATTRIBUTE,
  },
  /** Migration records and the per-document locks that keep migrations exclusive. */
  migrations: {
    id: 'MigrationsTable',
    localName: 'migrations',
    env: ENV.migrationsTable,
    partitionKey: 'pk',
    sortKey: 'sk',
  },
  /** API credentials, keyed by api key; tokens are stored only as SHA-256 hashes. */
  credentials: { id: 'CredentialsTable', localName: 'credentials', env: ENV.credentialsTable, partitionKey: 'apiKey' },
} as const satisfies Record<string, TableDefinition>;

export type TableName = keyof typeof TABLES;

export const TABLE_LIST: TableDefinition[] = Object.values(TABLES);
