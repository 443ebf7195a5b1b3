import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { conditionalTransaction } from '#shared/platform/conditional-write.js';
import { toUpdateItem } from '#shared/platform/item-write.js';
import type { ChangeAttribution } from '#shared/preferences/change-attribution.js';
import { DynamoMigrationEntryStore } from '#shared/preferences/dynamo-migration-entries.js';
import { entryPut } from '#shared/preferences/entry-item.js';
import { stampWrite } from '#shared/preferences/entry-updates.js';
import type { ExpectedVersion, MarkedEntry, MigrationEntryStore, UnchangedEntry } from '#shared/preferences/store.js';

/**
 * What a migration's pages do to entries (docs/design.md, "Migration and erasure"): the store's
 * reads, stamps and deletes, and a copy that is written only while its source entry is still
 * there as it was read. The plain conditional put (putEntryIf) checked only the target: a page
 * that read a user's source entry, then lost the race to an erasure of that user (source and
 * target gone, the erasure completed), wrote the copy afterwards and brought the erased entry back.
 */
export interface MigrationEntries extends Omit<MigrationEntryStore, 'putEntryIf'> {
  /**
   * In one transaction: writes `copy` (the whole entry, replacing what is there) if the target
   * still has `expected` (null: is still absent), and stamps `source` for its delete with
   * `change`, as stampForDelete does, if it still has the version and write time it was read
   * with. False when either condition did not hold (or the transaction met another one on the
   * same items): nothing was written, and a later pass reads both again.
   */
  copyEntryIf(
    copy: MarkedEntry,
    expected: ExpectedVersion,
    source: UnchangedEntry,
    change: ChangeAttribution,
  ): Promise<boolean>;
}

/**
 * The config table's MigrationEntries: DynamoMigrationEntryStore's operations, and the copy as one
 * TransactWriteItems of the store's own conditional put (entryPut) and the source's stamp. The stamp was to
 * be written anyway (before the source's delete, so that the change stream attributes the delete
 * to the migration: change-attribution.ts); written with the copy, it is what checks the source,
 * and the page need not stamp that source again. A copy costs a transactional put (twice a plain
 * put's write capacity), the stamp what it cost before.
 */
export class DynamoMigrationEntries extends DynamoMigrationEntryStore implements MigrationEntries {
  async copyEntryIf(
    copy: MarkedEntry,
    expected: ExpectedVersion,
    source: UnchangedEntry,
    change: ChangeAttribution,
  ): Promise<boolean> {
    const input: TransactWriteCommandInput = {
      // The copy exactly as the store writes an entry, and the source's stamp as stampForDelete does.
      TransactItems: [
        { Put: entryPut(this.table.tableName, copy, expected, change) },
        { Update: { TableName: this.table.tableName, ...toUpdateItem(stampWrite(source, change)) } },
      ],
    };
    // A condition that did not hold, or a concurrent transaction: a later pass reads both again.
    return conditionalTransaction(() => this.table.client.send(new TransactWriteCommand(input)));
  }
}
