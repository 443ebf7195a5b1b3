import { CONSENT_TEXT_STORE_GRANTS } from '#shared/consent/text-store.js';
import { LAST_ERASURE_GRANTS } from '#shared/erasure/last-erasure.js';
import { PUBLISHER_STREAM_FILTERS } from '#shared/events/publisher.js';
import { EXPORT_ENTRY_STORE_GRANTS as EXPORTED } from '#shared/exports/entries.js';
import { ACTIVE_INDEX } from '#shared/jobs/keys.js';
import { accessOf, type FunctionAccess } from '#shared/platform/route.js';
import { POLICY_STORE_GRANTS } from '#shared/policy/store.js';
import {
  ENTRY_CHANGE_GRANTS,
  ERASURE_ENTRY_STORE_GRANTS as ERASED,
  PREFERENCE_STORE_GRANTS,
} from '#shared/preferences/store-grants.js';
import { WEBHOOK_MAX_RECEIVE_COUNT } from '#shared/webhooks/model.js';
import { DELIVERY_LOG_GRANTS, WEBHOOK_STORE_GRANTS } from '#shared/webhooks/store.js';
import { MIGRATION_ENTRIES_GRANTS as ENTRIES } from './migration-entries-grants.js';

/**
 * What a Lambda function of the service is, in terms free of CDK: its handler file, its memory
 * and timeout, and exactly what it may touch. The stack (infra/) deploys each spec and the local
 * twin (local/) runs each one with the same timeout and memory, so the twin cannot drift from the
 * deployment. HTTP functions are described by their routes (service/routes.ts); the others are below.
 */
export interface FunctionSpec extends FunctionAccess {
  /** Handler file relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
}

/** 512 MB: about 0.29 vCPU (Lambda gives 1 vCPU at 1,769 MB). */
export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_TIMEOUT_SECONDS = 10;

export const memoryOf = (spec: FunctionSpec | Pick<FunctionSpec, 'memoryMb'>): number =>
  spec.memoryMb ?? DEFAULT_MEMORY_MB;
export const timeoutSecondsOf = (spec: Pick<FunctionSpec, 'timeoutSeconds'>): number =>
  spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;

/**
 * Every HTTP function authenticates against the credentials table first, then takes its
 * credential's permits from the shared rate-limit bucket (one conditional update per chunk).
 */
export const HTTP_FUNCTION_BASE = {
  tables: { credentials: ['GetItem'], limits: ['UpdateItem'] },
  settings: ['credentialCache', 'rateLimit'],
} as const satisfies Pick<FunctionSpec, 'tables' | 'settings'>;

/** The queue of migrations: the consumer receives a message this many times before it is dead-lettered. */
export const MIGRATION_MAX_RECEIVE_COUNT = 5;

/** The API's `$default` route: answers NOT_FOUND in the envelope and touches no data. */
export const NOT_FOUND_FUNCTION: FunctionSpec = {
  entry: 'functions/not-found.ts',
  description: 'Any unknown route: NOT_FOUND',
};

/** The SQS consumer that performs migrations (shared/jobs/run.ts with shared/migration/worker.ts). */
export const MIGRATION_CONSUMER_FUNCTION = {
  entry: 'functions/migration-consumer.ts',
  description: 'Performs document migrations',
  timeoutSeconds: 60,
  // One full vCPU: its work is CPU-bound (the SDK's cost per call), and duration shrinks as
  // memory grows, so the cost stays about the same (npm run bench -- --only=migration).
  memoryMb: 1769,
  ...accessOf(
    // List source entries, read targets, copy each with its source's stamp, stamp the other
    // sources and delete them (shared/migration/move-page.ts).
    ENTRIES.listDocumentEntries,
    ENTRIES.getMarkedEntries,
    ENTRIES.copyEntryIf,
    ENTRIES.stampForDelete,
    ENTRIES.deleteEntriesIf,
    // Lease, progress, complete or fail (updates), read the record, release locks; on completion the
    // forwarding record that the links of the old document follow (an update).
    { tables: { migrations: ['GetItem', 'UpdateItem', 'DeleteItem'] } },
  ),
  // Continuations of a long migration go back on its own queue.
  queues: { migrations: ['SendMessage'] },
  settings: ['migrationMaxReceiveCount'],
} as const satisfies FunctionSpec;

/** AWS's advice for an SQS event source: a visibility timeout of at least six times the function timeout. */
export const MIGRATION_VISIBILITY_TIMEOUT_SECONDS = 6 * MIGRATION_CONSUMER_FUNCTION.timeoutSeconds;

/**
 * Re-queues or fails jobs (migrations and erasures) that have stopped making progress
 * (shared/jobs/sweep.ts), every MIGRATION_SWEEP_INTERVAL_MINUTES: finds them in the index of
 * active jobs, marks them with conditional updates, frees the subjects of those it fails, queues
 * a message for those it resumes on their kind's queue. It never reads a record by key nor
 * touches the config table.
 */
export const MIGRATION_SWEEPER_FUNCTION = {
  entry: 'functions/migration-sweeper.ts',
  description: 'Resumes or fails migrations and erasures that have stopped making progress',
  timeoutSeconds: 60,
  // Mark re-queued or failed (updates), release locks.
  tables: { migrations: ['UpdateItem', 'DeleteItem'] },
  indexes: { migrations: [ACTIVE_INDEX] },
  queues: {
    migrations: ['SendMessage'],
    erasures: ['SendMessage'],
    exports: ['SendMessage'],
    imports: ['SendMessage'],
  },
} as const satisfies FunctionSpec;

export const MIGRATION_SWEEP_INTERVAL_MINUTES = 5;

/**
 * The consumer of the config and migrations tables' streams (shared/events/publisher.ts): it
 * writes the change history and puts the events on the bus. It reads the streams through its
 * event source mappings; it never reads the tables themselves.
 */
export const CHANGE_PUBLISHER_FUNCTION = {
  entry: 'functions/change-publisher.ts',
  description: "Records config changes in the history and publishes events, from the tables' streams",
  timeoutSeconds: 60,
  tables: {
    // Record changes (puts, 25 per BatchWriteItem); an erasure's change deletes that entry's
    // history (a consistent query of the user's partition, batch delete).
    history: ['Query', 'BatchWriteItem'],
  },
  streams: ['config', 'migrations'],
  // Invoked only for the records it acts on (entries, policies, finished jobs).
  streamFilters: PUBLISHER_STREAM_FILTERS,
  eventBus: ['PutEvents'],
  settings: ['historyRetention'],
} as const satisfies FunctionSpec;

/** Stream records per invocation of the change publisher. */
export const CHANGE_PUBLISHER_BATCH_SIZE = 100;
/**
 * Retries of a failing batch before the event source mapping gives up on it and sends its
 * description to the on-failure queue (the batch is halved on each error first, so it is the
 * failing record that ends there). The stream keeps records 24 hours.
 */
export const CHANGE_PUBLISHER_MAX_RETRY_ATTEMPTS = 10;
/** A batch the publisher fails as a whole is split in halves until the failing record is alone: the others go on. */
export const CHANGE_PUBLISHER_BISECT_ON_ERROR = true;

/** The erasure queue: the consumer receives a message this many times before it is dead-lettered. */
export const ERASURE_MAX_RECEIVE_COUNT = 5;

/** The SQS consumer that erases a user's entries and history in an organization (shared/jobs/run.ts with shared/erasure/worker.ts). */
export const ERASURE_CONSUMER_FUNCTION = {
  entry: 'functions/erasure-consumer.ts',
  description: "Erases a user's config entries and history in an organization",
  timeoutSeconds: 60,
  ...accessOf(
    // The user's entries (found on the user index, without a Scan), read, stamped and deleted.
    ERASED.listUserEntries,
    ERASED.getMarkedEntries,
    ERASED.stampForDelete,
    ERASED.deleteEntriesIf,
    // The revocation of the user's links (below).
    { tables: { config: ['UpdateItem'] } },
    {
      tables: {
        // Lease, progress, complete or fail (updates), read the record, release the user's lock.
        migrations: ['GetItem', 'UpdateItem', 'DeleteItem'],
        // The user's history in the organization: its keys, then batch deletes.
        history: ['Query', 'BatchWriteItem'],
      },
    },
    // As it ends, the erasure names itself the user's last (their export answers its record alone).
    LAST_ERASURE_GRANTS.mark,
  ),
  // Continuations of a long erasure go back on its own queue.
  queues: { erasures: ['SendMessage'] },
  settings: ['erasureMaxReceiveCount'],
  // An erasure revokes the user's links: a keyed hash per link key (shared/links/revocation.ts),
  // written to the config table with an UpdateItem.
  secrets: ['linkKeys'],
} as const satisfies FunctionSpec;

export const ERASURE_VISIBILITY_TIMEOUT_SECONDS = 6 * ERASURE_CONSUMER_FUNCTION.timeoutSeconds;

/**
 * The consumer of the webhooks queue (shared/webhooks/dispatcher.ts): the bus's events (a rule
 * sends them to the queue) and the retries it queued itself. It reads the organization's
 * endpoints, opens their secrets (a key derived from the link keys), signs and sends, records
 * each attempt, and queues the next attempt of a failed one.
 */
export const WEBHOOK_DISPATCHER_FUNCTION = {
  entry: 'functions/webhook-dispatcher.ts',
  description: "Delivers the service's events to the organizations' webhook endpoints, signed, with retries",
  // A batch's sends run side by side, each at most 15 s.
  timeoutSeconds: 60,
  ...accessOf(
    WEBHOOK_STORE_GRANTS.get,
    WEBHOOK_STORE_GRANTS.markFailing,
    WEBHOOK_STORE_GRANTS.clearFailing,
    WEBHOOK_STORE_GRANTS.disable,
    WEBHOOK_STORE_GRANTS.reseal,
    DELIVERY_LOG_GRANTS.record,
  ),
  // The next attempt of a failed delivery goes back on the queue, delayed.
  queues: { webhooks: ['SendMessage'] },
  secrets: ['linkKeys'],
} as const satisfies FunctionSpec;

/** Messages per invocation of the dispatcher: each is one event (or one retry), sent side by side. */
export const WEBHOOK_BATCH_SIZE = 10;
export { WEBHOOK_MAX_RECEIVE_COUNT };
export const WEBHOOK_VISIBILITY_TIMEOUT_SECONDS = 6 * WEBHOOK_DISPATCHER_FUNCTION.timeoutSeconds;
/** The export queue: the consumer receives a message this many times before it is dead-lettered. */
export const EXPORT_MAX_RECEIVE_COUNT = 5;

/** The SQS consumer that writes an organization's export file (shared/jobs/run.ts with shared/exports/worker.ts). */
export const EXPORT_CONSUMER_FUNCTION = {
  entry: 'functions/export-consumer.ts',
  description: "Writes an organization's export file",
  timeoutSeconds: 60,
  // One full vCPU, like the migration consumer: its work is the SDK's cost per call.
  memoryMb: 1769,
  ...accessOf(
    // The organization's entries: its partition of the user index, then the entries by key.
    EXPORTED.listOrganizationEntries,
    EXPORTED.getEntries,
    // Lease, progress, complete or fail (updates), read the record.
    { tables: { migrations: ['GetItem', 'UpdateItem'] } },
  ),
  // The file, whole or in parts (create, each part, complete: PutObject).
  files: { exports: ['PutObject'] },
  // Continuations of a long export go back on its own queue.
  queues: { exports: ['SendMessage'] },
  settings: ['exportMaxReceiveCount'],
} as const satisfies FunctionSpec;

export const EXPORT_VISIBILITY_TIMEOUT_SECONDS = 6 * EXPORT_CONSUMER_FUNCTION.timeoutSeconds;

/** The import queue: the consumer receives a message this many times before it is dead-lettered. */
export const IMPORT_MAX_RECEIVE_COUNT = 5;

/** The SQS consumer that applies an organization's import file (shared/jobs/run.ts with shared/imports/worker.ts). */
export const IMPORT_CONSUMER_FUNCTION = {
  entry: 'functions/import-consumer.ts',
  description: "Applies an organization's import file, started by its upload",
  // Long pages of reading and writing; continuations go back on the queue before the deadline.
  timeoutSeconds: 900,
  // One full vCPU, like the other consumers: parsing and the SDK's cost per call.
  memoryMb: 1769,
  ...accessOf(
    // Each page: its entries read, the changed ones written in batches (a set's writes and a schedule's).
    PREFERENCE_STORE_GRANTS.getEntries,
    ENTRY_CHANGE_GRANTS.writeChanges,
    // The organization's policy for its locks; a row's consent text stored once.
    POLICY_STORE_GRANTS.get,
    CONSENT_TEXT_STORE_GRANTS.putText,
    // Lease, progress, complete or fail (updates), read the record, mark it queued when its file arrives.
    { tables: { migrations: ['GetItem', 'UpdateItem'] } },
  ),
  // The uploaded file; the error report's parts and the report (whole or in parts: PutObject).
  files: { imports: ['GetObject'], importErrors: ['GetObject', 'PutObject'] },
  // Continuations of a long import go back on its own queue.
  queues: { imports: ['SendMessage'] },
  settings: ['importMaxReceiveCount', 'importWriteRate', 'policyCache'],
} as const satisfies FunctionSpec;

export const IMPORT_VISIBILITY_TIMEOUT_SECONDS = 6 * IMPORT_CONSUMER_FUNCTION.timeoutSeconds;

/** The functions behind no route, by their name in the stack (`<name>Function`); the routes' come from the operations. */
export const NON_ROUTE_FUNCTIONS = {
  NotFound: NOT_FOUND_FUNCTION,
  MigrationConsumer: MIGRATION_CONSUMER_FUNCTION,
  MigrationSweeper: MIGRATION_SWEEPER_FUNCTION,
  ErasureConsumer: ERASURE_CONSUMER_FUNCTION,
  ExportConsumer: EXPORT_CONSUMER_FUNCTION,
  ImportConsumer: IMPORT_CONSUMER_FUNCTION,
  ChangePublisher: CHANGE_PUBLISHER_FUNCTION,
  WebhookDispatcher: WEBHOOK_DISPATCHER_FUNCTION,
} as const satisfies Record<string, FunctionSpec>;
