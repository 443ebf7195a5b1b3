import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { drainWithBackoff } from '#shared/platform/backoff.js';
import { conditional } from '#shared/platform/conditional-write.js';
import { UnprocessedItemsError } from '#shared/platform/dependency-errors.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import type { RecordedChange } from './from-stream.js';
import { ENTRY_INDEX, entrySortPrefix, historyKeys, userPartition } from './keys.js';
import type { HistoryChange } from './results.js';
import { HISTORY_TTL_ATTRIBUTE } from './retention.js';
import type { HistoryPage, HistoryQuery, HistoryStore } from './store.js';

type Item = Record<string, unknown>;
type WriteRequest = { DeleteRequest: { Key: Item } };

const BATCH_WRITE_LIMIT = 25;
/** Keys read per Query of a delete pass. */
const DELETE_PAGE = 500;

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
  before: (item.before as HistoryChange['before']) ?? {},
  after: (item.after as HistoryChange['after']) ?? {},
});

/** Queries one page may take when a category filter passes over other layers' changes. */
const MAX_FILTERED_QUERIES = 5;

/** Only one layer's changes: a category's (its id is stored), or the all-categories one (none is). */
const categoryFilter = (category: string | null | undefined) => {
  if (category === undefined) return undefined;
  const names = { '#category': 'category' };
  if (category === null)
    return { FilterExpression: 'attribute_not_exists(#category)', ExpressionAttributeNames: names };
  return {
    FilterExpression: '#category = :category',
    ExpressionAttributeNames: names,
    values: { ':category': category },
  };
};

export class DynamoHistoryStore implements HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async record({ change, sequenceNumber }: RecordedChange, expiresAt: number): Promise<boolean> {
    const { documentId, category, ...rest } = change;
    return conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...historyKeys(change, change.changedAt, sequenceNumber),
            ...rest,
            ...(documentId === null ? {} : { documentId }),
            ...(category === null ? {} : { category }),
            [HISTORY_TTL_ATTRIBUTE]: expiresAt,
          },
          // The key comes from the stream record: a redelivery finds its own item there.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async list({ organizationId, userId, documentId, category, limit, startKey }: HistoryQuery): Promise<HistoryPage> {
    const changes: HistoryChange[] = [];
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
      lastKey = output.LastEvaluatedKey as Record<string, string> | undefined;
      if (!lastKey || changes.length >= limit || category === undefined) break;
    }
    return { changes, ...(lastKey ? { lastKey } : {}) };
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

  deleteEntryHistory(organizationId: string, userId: string, documentId: string | null): Promise<number> {
    return this.deleteAll(this.keyCondition(organizationId, userId, documentId));
  }

  deleteUserHistory(organizationId: string, userId: string): Promise<number> {
    return this.deleteAll(this.keyCondition(organizationId, userId, undefined));
  }

  /** Queries the keys page by page and deletes them, 25 per BatchWriteItem (unprocessed ones retried). */
  private async deleteAll(condition: ReturnType<DynamoHistoryStore['keyCondition']>): Promise<number> {
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
      for (let start = 0; start < keys.length; start += BATCH_WRITE_LIMIT) {
        const requests: WriteRequest[] = keys
          .slice(start, start + BATCH_WRITE_LIMIT)
          .map((Key) => ({ DeleteRequest: { Key } }));
        const left = await drainWithBackoff<WriteRequest[]>(requests, async (batch) => {
          const result = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: batch } }));
          const rest = result.UnprocessedItems?.[this.tableName] as WriteRequest[] | undefined;
          return rest?.length ? rest : undefined;
        });
        if (left) throw new UnprocessedItemsError(`${left.length} history items left undeleted after retries`);
      }
      deleted += keys.length;
      startKey = output.LastEvaluatedKey;
    } while (startKey);
    return deleted;
  }
}
