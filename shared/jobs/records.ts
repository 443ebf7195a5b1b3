import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ACTIVE_PK_ATTRIBUTE, recordKey } from './keys.js';
import type { JobKind } from './kind.js';
import type { JobRecord } from './record.js';

/**
 * The status records of one job kind, read. What a status route and a person's export need: a
 * function that only reads bundles this, not the engine's writes (repository.ts).
 */
export class DynamoJobRecords<R extends JobRecord & Q, Q extends { organizationId: string }> {
  constructor(
    readonly kind: JobKind<R, Q, unknown>,
    protected readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  /** An item as stored, to a record: keys and the index attribute dropped, the kind's defaults for what it may lack. */
  protected toRecord(item: Record<string, unknown>): R {
    const { pk: _pk, sk: _sk, [ACTIVE_PK_ATTRIBUTE]: _active, ...rest } = item;
    return { runs: {}, ...this.kind.pageFields, ...rest } as unknown as R;
  }

  async get(id: string): Promise<R | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: recordKey(this.kind, id), ConsistentRead: true }),
    );
    return Item ? this.toRecord(Item) : undefined;
  }
}
