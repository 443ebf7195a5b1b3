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
  cause: item.cause as HistoryChange['cause'],
  changedAt: item.changedAt as string,
  changedBy: item.changedBy as string,
  before: (item.before as HistoryChange['before']) ?? {},
  after: (item.after as HistoryChange['after']) ?? {},
});

export class DynamoHistoryStore implements HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async record({ change, sequenceNumber }: RecordedChange, expiresAt: number): Promise<boolean> {
    const { documentId, ...rest } = change;
    return conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...historyKeys(change, change.changedAt, sequenceNumber),
            ...rest,
            ...(documentId === null ? {} : { documentId }),
            [HISTORY_TTL_ATTRIBUTE]: expiresAt,
          },
          // The key comes from the stream record: a redelivery finds its own item there.
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async list({ organizationId, userId, documentId, limit, startKey }: HistoryQuery): Promise<HistoryPage> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        ...this.keyCondition(organizationId, userId, documentId),
        ScanIndexForward: false,
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    const lastKey = output.LastEvaluatedKey as Record<string, string> | undefined;
    return { changes: (output.Items ?? []).map(toChange), ...(lastKey ? { lastKey } : {}) };
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
