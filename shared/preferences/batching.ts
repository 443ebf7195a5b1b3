/*
 * Batch sizes and concurrencies of the config table's adapters and of their callers, in one
 * place. The sizes are DynamoDB's limits per call; the concurrencies bound what one request or
 * one job page keeps in flight.
 */

/** Keys in one BatchGetItem (DynamoDB's maximum). */
export const BATCH_GET_LIMIT = 100;

/** Statements in one PartiQL BatchExecuteStatement (DynamoDB's maximum): a job page's stamps and deletes, an import page's changes. */
export const STATEMENT_BATCH_LIMIT = 25;

/**
 * Entry writes (one conditional UpdateItem each) in flight at once for one request of config/set,
 * config/reset or schedule/set: its 5,000 entries at most finish well within the deadline, and
 * the table sees no burst beyond this.
 */
export const REQUEST_WRITE_CONCURRENCY = 32;

/** An import page's BatchExecuteStatement calls in flight at once (dynamo-entry-changes.ts). */
export const IMPORT_BATCH_CONCURRENCY = 4;

/** Entries written one call each side by side, for the changes of many entries (entry-changes.ts). */
export const ALONE_WRITE_CONCURRENCY = 16;

/** Copies and reads in flight at once on one page of a migration. */
export const MIGRATION_WRITE_CONCURRENCY = 16;
