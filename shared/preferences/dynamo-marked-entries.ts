import { BatchExecuteStatementCommand, DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chunkStarts } from '#shared/platform/chunks.js';
import { conditional } from '#shared/platform/conditional-write.js';
import { type Statement, toDeleteItem, toPartiqlDelete, toPartiqlUpdate } from '#shared/platform/item-write.js';
import { STATEMENT_BATCH_LIMIT } from './batching.js';
import type { ChangeAttribution } from './change-attribution.js';
import { itemToMarkedEntry } from './entry-item.js';
import { EntryTable } from './entry-table.js';
import { deleteWrite, stampWrite } from './entry-updates.js';
import { entryTableKey } from './keys.js';
import type { EntryKey } from './model.js';
import type { ErasureMarker, MarkedEntry, Unchanged, UnchangedEntry } from './store.js';

/**
 * What migration and erasure share on the config table (MigrationEntryStore, ErasureEntryStore):
 * entries read with their markers, and the stamped deletes of a job's page. A page holds up to
 * hundreds of entries, so its stamps and deletes go as PartiQL statements, STATEMENT_BATCH_LIMIT
 * to a call (1 write unit each, as UpdateItem and DeleteItem): statements that never create an
 * item (an UPDATE whose conditions require it, a DELETE), so each has one rendering.
 */
export class DynamoMarkedEntries {
  protected readonly table: EntryTable;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.table = new EntryTable(client, tableName);
  }

  /** Reads entries by key with their markers, tombstones included; missing entries are absent. */
  async getMarkedEntries(keys: readonly EntryKey[]): Promise<MarkedEntry[]> {
    return (await this.table.batchGet(keys.map(entryTableKey))).map(itemToMarkedEntry);
  }

  /**
   * The stamps in batches. A stamp refused by its condition leaves its entry: the entry changed
   * (or went) since it was read, and its version never comes back.
   */
  async stampForDelete(
    entries: readonly UnchangedEntry[],
    change: ChangeAttribution,
    marker?: ErasureMarker,
  ): Promise<EntryKey[]> {
    const writes = entries.map((entry) => stampWrite(entry, change, marker));
    const applied = await this.inBatches(
      writes.map((write) => toPartiqlUpdate(this.table.tableName, write)),
      async (index) => (await this.table.update(writes[index] as (typeof writes)[number])) !== undefined,
    );
    return entries.filter((_, index) => applied[index]);
  }

  async deleteEntryIf(key: EntryKey, unchanged: Unchanged, change: ChangeAttribution): Promise<boolean> {
    const del = deleteWrite({ ...key, ...unchanged }, change);
    return conditional(() =>
      this.table.client.send(new DeleteCommand({ TableName: this.table.tableName, ...toDeleteItem(del) })),
    );
  }

  /** The deletes in batches. A delete whose condition failed leaves its entry. */
  async deleteEntriesIf(entries: readonly UnchangedEntry[], change: ChangeAttribution): Promise<EntryKey[]> {
    const deleted = await this.inBatches(
      entries.map((entry) => toPartiqlDelete(this.table.tableName, deleteWrite(entry, change))),
      (index) => {
        const entry = entries[index] as UnchangedEntry;
        return this.deleteEntryIf(entry, entry, change);
      },
    );
    return entries.filter((_, index) => deleted[index]);
  }

  /**
   * Sends the statements in BatchExecuteStatement calls of STATEMENT_BATCH_LIMIT, all at once, and
   * answers which were applied. One refused by its condition was not; one the batch did not apply
   * for another reason (throttled, no answer, the call failed) is tried once more on its own
   * (`alone`), and that answer is its.
   */
  private async inBatches(statements: Statement[], alone: (index: number) => Promise<boolean>): Promise<boolean[]> {
    const batch = async (start: number): Promise<boolean[]> => {
      const chunk = statements.slice(start, start + STATEMENT_BATCH_LIMIT);
      let codes: (string | undefined)[];
      try {
        const { Responses = [] } = await this.table.client.send(
          new BatchExecuteStatementCommand({ Statements: chunk }),
        );
        codes = chunk.map((_, i) => (Responses[i] ? Responses[i].Error?.Code : 'NoResponse'));
      } catch {
        codes = chunk.map(() => 'CallFailed');
      }
      return Promise.all(
        codes.map((code, i) =>
          code === undefined ? true : code === 'ConditionalCheckFailed' ? false : alone(start + i),
        ),
      );
    };
    return (await Promise.all(chunkStarts(statements.length, STATEMENT_BATCH_LIMIT).map(batch))).flat();
  }
}
