import { ERASURE_TTL_ATTRIBUTE } from '#shared/erasure/model.js';
import { ENTRY_INDEX } from '#shared/history/keys.js';
import { HISTORY_TTL_ATTRIBUTE } from '#shared/history/retention.js';
import { ACTIVE_INDEX, ACTIVE_PK_ATTRIBUTE } from '#shared/jobs/keys.js';
import { ENV, type EnvName } from '#shared/platform/environment.js';
import { USER_INDEX } from '#shared/preferences/keys.js';
import { TOMBSTONE_TTL_ATTRIBUTE } from '#shared/preferences/tombstone.js';

/** A global secondary index: string keys, and which attributes it holds. */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey?: string;
  /** KEYS_ONLY: the table's and the index's keys; ALL: the whole item. */
  projection: 'KEYS_ONLY' | 'ALL';
}

/**
 * The DynamoDB tables: key schema, indexes, change stream and the environment variable that
 * carries each table's name. The CDK stack and the local runtime both create tables from this list.
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
  /** Global secondary indexes, all on string attributes. */
  indexes?: readonly IndexDefinition[];
  /** The table's change stream, read by the change publisher (shared/events/publisher.ts). */
  stream?: 'NEW_AND_OLD_IMAGES';
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
    // Every change becomes a history item and an event (shared/history/).
    stream: 'NEW_AND_OLD_IMAGES',
    // One user's entries in an organization, for erasure (shared/preferences/keys.ts).
    indexes: [{ name: USER_INDEX, partitionKey: 'organizationId', sortKey: 'userId', projection: 'KEYS_ONLY' }],
  },
  /**
   * The jobs (shared/jobs/keys.ts): migration records and the per-document locks that keep
   * migrations exclusive; erasure records and their per-user locks. A finished erasure's record expires.
   */
  migrations: {
    id: 'MigrationsTable',
    localName: 'migrations',
    env: ENV.migrationsTable,
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: ERASURE_TTL_ATTRIBUTE,
    // A record that completes or fails becomes an event (shared/history/).
    stream: 'NEW_AND_OLD_IMAGES',
    // Active jobs by last progress, a partition per kind, for the sweeper of stuck ones (shared/jobs/keys.ts).
    indexes: [{ name: ACTIVE_INDEX, partitionKey: ACTIVE_PK_ATTRIBUTE, sortKey: 'updatedAt', projection: 'ALL' }],
  },
  /** API credentials, keyed by api key; tokens are stored only as SHA-256 hashes. */
  credentials: { id: 'CredentialsTable', localName: 'credentials', env: ENV.credentialsTable, partitionKey: 'apiKey' },
  /**
   * Each credential's request rate, shared by every function instance (shared/auth/rate-limit.ts):
   * one small item per credential, updated by the requests themselves.
   */
  limits: { id: 'RateLimitsTable', localName: 'limits', env: ENV.limitsTable, partitionKey: 'apiKey' },
  /**
   * The change history of config entries (shared/history/keys.ts), written only by the change
   * publisher from the config table's stream; items expire after the retention time.
   */
  history: {
    id: 'HistoryTable',
    localName: 'history',
    env: ENV.historyTable,
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: HISTORY_TTL_ATTRIBUTE,
    indexes: [{ name: ENTRY_INDEX, partitionKey: 'entryPk', sortKey: 'entrySk', projection: 'ALL' }],
  },
} as const satisfies Record<string, TableDefinition>;

export type TableName = keyof typeof TABLES;

export const TABLE_LIST: TableDefinition[] = Object.values(TABLES);
