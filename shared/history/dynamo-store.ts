import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { storedEvidence } from '#shared/consent/evidence.js';
import { drainWithBackoff } from '#shared/platform/backoff.js';
import { chunkStarts } from '#shared/platform/chunks.js';
import { UnprocessedItemsError } from '#shared/platform/dependency-errors.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { ENTRY_INDEX, entrySortPrefix, historyKeys, userPartition } from './keys.js';
import type { HistoryChange } from './results.js';
import { HISTORY_TTL_ATTRIBUTE } from './retention.js';
import type { HistoryPage, HistoryQuery, HistoryStore, HistoryWrite, HistoryWriteFailure } from './store.js';

type Item = Record<string, unknown>;

type WriteRequest = { DeleteRequest: { Key: Item } } | { PutRequest: { Item: Item } };

const BATCH_WRITE_LIMIT = 25;
/** Keys read per Query of a delete pass. */
const DELETE_PAGE = 500;
/** Entries of one user whose changes one Query of an erasure finds (DynamoDB's bound on `IN`). */
const ERASE_FILTER_VALUES = 100;

const toChange = (item: Item): HistoryChange => ({
  changeId: item.changeId as string,
  organizationId: item.organizationId as string,
  userId: item.userId as string,
  documentId: (item.documentId as string | undefined) ?? null,
  scope: item.scope as HistoryChange['scope'],
  category: (item.category as string | undefined) ?? null,
  cause: item.cause as HistoryChange['cause'],
  changedAt: item.changedAt as string,
  changedBy: item.changedBy as string,
  evidence: storedEvidence(item.evidence, item.cause as string, item.changedBy as string),
  // A schedule's change keeps its null (no schedule); a layer's missing channels are {}.
  before: (item.before as HistoryChange['before']) ?? (item.scope === 'schedule' ? null : {}),
  after: (item.after as HistoryChange['after']) ?? (item.scope === 'schedule' ? null : {}),
});

/** Queries one page may take when a category filter passes over other layers' changes. */
const MAX_FILTERED_QUERIES = 5;

/** Only one layer's changes: a category's (its id is stored), or the all-categories one (none is). */
const categoryFilter = (category: string | null | undefined) => {
  if (category === undefined) return undefined;
  const names = { '#category': 'category' };
  if (category === null) {
    // The all-categories layer's changes: no category, and not a schedule's.
    return {
      FilterExpression: 'attribute_not_exists(#category) AND #scope <> :schedule',
      ExpressionAttributeNames: { ...names, '#scope': 'scope' },
      values: { ':schedule': 'schedule' },
    };
  }
  return {
    FilterExpression: '#category = :category',
    ExpressionAttributeNames: names,
    values: { ':category': category },
  };
};

/** A change's keys in the table and the entry index: from its entry, time and stream record. */
const keysOf = ({ recorded: { change, sequenceNumber } }: HistoryWrite) =>
  historyKeys(change, change.changedAt, sequenceNumber);

/** A change as its history item, expiring with the TTL. */
const historyItem = (write: HistoryWrite): Item => {
  const { documentId, category, ...rest } = write.recorded.change;
  return {
    ...keysOf(write),
    ...rest,
    ...(documentId === null ? {} : { documentId }),
    ...(category === null ? {} : { category }),
    [HISTORY_TTL_ATTRIBUTE]: write.expiresAt,
  };
};

export class DynamoHistoryStore implements HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  /**
   * 25 changes to a BatchWriteItem, the calls at once. A put needs no condition: the key comes
   * from the stream record, so a redelivered change is written again as the same item (a
   * conditional put per change cost one call each). When a call fails, its changes are written
   * again one at a time, in order, to find the first that fails: a change the table refuses
   * fails alone, not the 24 beside it.
   */
  async recordAll(writes: readonly HistoryWrite[]): Promise<HistoryWriteFailure | undefined> {
    const items = writes.map(historyItem);
    const failures = await Promise.all(
      chunkStarts(items.length, BATCH_WRITE_LIMIT).map(async (start) => {
        const chunk = items.slice(start, start + BATCH_WRITE_LIMIT);
        try {
          await this.writeAll(chunk.map((Item) => ({ PutRequest: { Item } })));
          return undefined;
        } catch {
          for (const [offset, Item] of chunk.entries()) {
            try {
              await this.writeAll([{ PutRequest: { Item } }]);
            } catch (error) {
              return { index: start + offset, error };
            }
          }
          return undefined;
        }
      }),
    );
    return failures.find((failure) => failure !== undefined);
  }

  async list({ organizationId, userId, documentId, category, limit, startKey }: HistoryQuery): Promise<HistoryPage> {
    const changes: HistoryChange[] = [];
    const positions: Record<string, string>[] = [];
    let lastKey = startKey;
    // A category filter is applied after DynamoDB's Limit: a page is filled by a few more
    // Queries, each asking only for what is still missing, so it never holds more than `limit`.
    const condition = this.keyCondition(organizationId, userId, documentId);
    const filter = categoryFilter(category);
    for (let query = 0; query < MAX_FILTERED_QUERIES; query += 1) {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          ...condition,
          ...(filter
            ? {
                FilterExpression: filter.FilterExpression,
                ExpressionAttributeNames: filter.ExpressionAttributeNames,
                ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ...filter.values },
              }
            : {}),
          ScanIndexForward: false,
          Limit: limit - changes.length,
          ...(lastKey ? { ExclusiveStartKey: lastKey } : {}),
        }),
      );
      changes.push(...(output.Items ?? []).map(toChange));
      positions.push(...(output.Items ?? []).map((item) => ({ pk: String(item.pk), sk: String(item.sk) })));
      lastKey = output.LastEvaluatedKey as Record<string, string> | undefined;
      if (!lastKey || changes.length >= limit || category === undefined) break;
    }
    return { changes, positions, ...(lastKey ? { lastKey } : {}) };
  }

  /** The user's partition, or one entry's changes of the user in the entry index. */
  private keyCondition(
    organizationId: string,
    userId: string,
    documentId: string | null | undefined,
  ): Pick<QueryCommandInput, 'KeyConditionExpression' | 'ExpressionAttributeValues' | 'IndexName'> {
    if (documentId === undefined) {
      return {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': userPartition(organizationId, userId) },
      };
    }
    return {
      IndexName: ENTRY_INDEX,
      KeyConditionExpression: 'entryPk = :pk AND begins_with(entrySk, :user)',
      ExpressionAttributeValues: {
        ':pk': entryTableKey({ organizationId, userId, documentId }).pk,
        ':user': entrySortPrefix(userId),
      },
    };
  }

  /**
   * The entries' changes, read from the user's partition of the table itself with a consistent
   * Query, filtered to the entries: a change stored a moment ago, even by an earlier batch, is
   * there (the entry index, eventually consistent, may not list it yet). The filter reads the
   * whole partition, hence one Query for up to ERASE_FILTER_VALUES entries of a user.
   */
  async deleteEntryHistory(
    organizationId: string,
    userId: string,
    documentIds: readonly (string | null)[],
  ): Promise<number> {
    const entryPks = [
      ...new Set(documentIds.map((documentId) => entryTableKey({ organizationId, userId, documentId }).pk)),
    ];
    const partition = this.keyCondition(organizationId, userId, undefined);
    let deleted = 0;
    for (let start = 0; start < entryPks.length; start += ERASE_FILTER_VALUES) {
      const chunk = entryPks.slice(start, start + ERASE_FILTER_VALUES);
      const names = chunk.map((_, i) => `:entry${i}`);
      deleted += await this.deleteAll({
        ...partition,
        ConsistentRead: true,
        FilterExpression: `entryPk IN (${names.join(', ')})`,
        ExpressionAttributeValues: {
          ...partition.ExpressionAttributeValues,
          ...Object.fromEntries(chunk.map((pk, i) => [names[i], pk])),
        },
      });
    }
    return deleted;
  }

  deleteUserHistory(organizationId: string, userId: string): Promise<number> {
    // The user's partition of the table itself, read consistently: a change recorded a moment
    // before the erasure's last step is listed too (an index cannot be read so).
    return this.deleteAll({ ...this.keyCondition(organizationId, userId, undefined), ConsistentRead: true });
  }

  /** Queries the keys page by page (what a filter keeps of each page) and deletes them; answers how many. */
  private async deleteAll(
    condition: ReturnType<DynamoHistoryStore['keyCondition']> &
      Pick<QueryCommandInput, 'ConsistentRead' | 'FilterExpression'>,
  ): Promise<number> {
    let deleted = 0;
    let startKey: Item | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          ...condition,
          ProjectionExpression: 'pk, sk',
          Limit: DELETE_PAGE,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      const keys = (output.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk }));
      await this.deleteKeys(keys);
      deleted += keys.length;
      startKey = output.LastEvaluatedKey;
    } while (startKey);
    return deleted;
  }

  /** 25 keys per BatchWriteItem, one call after the other. */
  private async deleteKeys(keys: readonly Item[]): Promise<void> {
    for (const start of chunkStarts(keys.length, BATCH_WRITE_LIMIT)) {
      await this.writeAll(keys.slice(start, start + BATCH_WRITE_LIMIT).map((Key) => ({ DeleteRequest: { Key } })));
    }
  }

  /** One BatchWriteItem of at most 25 requests; what it leaves unprocessed is sent again with backoff. */
  private async writeAll(requests: WriteRequest[]): Promise<void> {
    const left = await drainWithBackoff<WriteRequest[]>(requests, async (batch) => {
      const result = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: batch } }));
      const rest = result.UnprocessedItems?.[this.tableName] as WriteRequest[] | undefined;
      return rest?.length ? rest : undefined;
    });
    if (left) throw new UnprocessedItemsError(`${left.length} history writes left unprocessed after retries`);
  }
}
