import { setTimeout as sleep } from 'node:timers/promises';
import { BatchExecuteStatementCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { chunkStarts } from '#shared/platform/chunks.js';
import { type ItemWrite, type Statement, toPartiqlInsert, toPartiqlUpdate } from '#shared/platform/item-write.js';
import { IMPORT_BATCH_CONCURRENCY, STATEMENT_BATCH_LIMIT } from './batching.js';
import { DynamoScheduleStore } from './dynamo-schedule-store.js';
import { DynamoPreferenceStore } from './dynamo-store.js';
import { type ChangeOutcome, type EntryChange, type EntryChangeWriter, writeEachAlone } from './entry-changes.js';
import { channelWrite, scheduleWrite } from './entry-updates.js';
import { entryId } from './store.js';

/**
 * The config table's EntryChangeWriter. A change is rendered as the same conditional write
 * setChannels or setSchedule sends first, as a PartiQL statement, STATEMENT_BATCH_LIMIT to a
 * BatchExecuteStatement call: an INSERT where the entry was not stored (it fails if the entry
 * exists by now), an UPDATE with the write's conditions where it was. Every change the batches
 * did not apply (a condition refused it, the entry appeared, the call failed or was throttled) is
 * then written alone, as setChannels and setSchedule write it, with their retries per channel and
 * their verdict on category layers. Written alone from the start: a change whose entry has another
 * change in the same call (one item, one statement a batch, in order), a schedule's removal
 * (which may delete the emptied entry), and a category layer added to a stored entry (PartiQL's
 * set_add is not relied on for a set that may be missing). With `writesPerSecond`, the batches
 * start spread over the call, each when the statements before it have had their time at that
 * rate: the table sees a steady rate, not a page's writes at once and then a pause.
 */
export class DynamoEntryChanges implements EntryChangeWriter {
  private readonly preferences: DynamoPreferenceStore;
  private readonly schedules: DynamoScheduleStore;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.preferences = new DynamoPreferenceStore(client, tableName);
    this.schedules = new DynamoScheduleStore(client, tableName);
  }

  async writeChanges(
    changes: readonly EntryChange[],
    stored: ReadonlySet<string>,
    writesPerSecond = Number.POSITIVE_INFINITY,
  ): Promise<ChangeOutcome[]> {
    const perEntry = new Map<string, number>();
    for (const { key } of changes) perEntry.set(entryId(key), (perEntry.get(entryId(key)) ?? 0) + 1);
    const batched: { index: number; statement: Statement }[] = [];
    changes.forEach((change, index) => {
      const id = entryId(change.key);
      if (perEntry.get(id) !== 1) return;
      const statement = this.statementOf(change, stored.has(id));
      if (statement) batched.push({ index, statement });
    });
    const applied = new Set<number>();
    const started = performance.now();
    await pMap(
      chunkStarts(batched.length, STATEMENT_BATCH_LIMIT),
      async (start) => {
        const due = started + (start / writesPerSecond) * 1000;
        if (due > performance.now()) await sleep(due - performance.now());
        const chunk = batched.slice(start, start + STATEMENT_BATCH_LIMIT);
        try {
          const { Responses = [] } = await this.client.send(
            new BatchExecuteStatementCommand({ Statements: chunk.map(({ statement }) => statement) }),
          );
          chunk.forEach(({ index }, i) => {
            const response = Responses[i];
            if (response && response.Error === undefined) applied.add(index);
          });
        } catch {
          // The whole call failed: each of its changes is written alone below.
        }
      },
      { concurrency: IMPORT_BATCH_CONCURRENCY },
    );
    const rest = changes.flatMap((change, index) => (applied.has(index) ? [] : [{ change, index }]));
    const outcomes: ChangeOutcome[] = changes.map(() => 'written');
    const alone = await writeEachAlone(
      {
        setChannels: this.preferences.setChannels.bind(this.preferences),
        setSchedule: this.schedules.setSchedule.bind(this.schedules),
      },
      rest.map(({ change }) => change),
    );
    rest.forEach(({ index }, i) => {
      outcomes[index] = alone[i] as ChangeOutcome;
    });
    return outcomes;
  }

  /** The change's first write as one statement, or undefined when it is written alone from the start. */
  private statementOf(change: EntryChange, stored: boolean): Statement | undefined {
    let write: ItemWrite;
    if (change.config) {
      write = channelWrite({
        key: change.key,
        changes: change.config,
        meta: change.meta,
        entryTime: true,
        mustExist: false,
      });
    } else if (change.schedule) {
      write = scheduleWrite(change.key, change.schedule, change.meta, true);
    } else {
      return undefined;
    }
    if (!stored) return toPartiqlInsert(this.tableName, write);
    if (write.addToSet?.length) return undefined;
    return toPartiqlUpdate(this.tableName, write);
  }
}
