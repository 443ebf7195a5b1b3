import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Schedule } from '#shared/schedules/schema.js';
import { hasChannel } from './entry-item.js';
import { EntryTable } from './entry-table.js';
import { scheduleWrite } from './entry-updates.js';
import type { EntryKey, StoredEntry } from './model.js';
import type { CallOptions, ScheduleStore, WriteMeta } from './store.js';

/** The config table's ScheduleStore: schedules on organization-level entries, written as entry-table.ts does. */
export class DynamoScheduleStore implements ScheduleStore {
  private readonly table: EntryTable;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.table = new EntryTable(client, tableName);
  }

  async setSchedule(
    key: EntryKey,
    schedule: Schedule | null,
    meta: WriteMeta,
    options: CallOptions = {},
  ): Promise<void> {
    const update = (entryTime: boolean) =>
      this.table.update(scheduleWrite(key, schedule, meta, entryTime), options, schedule === null);
    // The entry changed after this request began: its time stays, the schedule's own condition decides.
    const after = (await update(true)) ?? (await update(false));
    if (schedule !== null || !after || hasChannel(after)) return;
    // Its schedule removed, an entry with nothing else in it goes as a reset's emptied entry does
    // (an organization-level one, where schedules live, is deleted), unless a concurrent write has
    // given it something meanwhile.
    await this.table.dropEmptied(key, meta.updatedAt, options);
  }

  async getEntries(keys: readonly EntryKey[]): Promise<StoredEntry[]> {
    return this.table.readEntries(keys);
  }
}
