import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { JobRepository } from '#shared/jobs/repository.js';
import { escapeKeyPart } from '#shared/platform/key-parts.js';
import type { StoreAccess } from '#shared/platform/route.js';
import { erasureJob } from './kind.js';
import { ERASURE_TTL_ATTRIBUTE, type ErasureRecord, type ErasureView, erasureExpiry } from './model.js';

/*
 * Which erasure last completed for a user in an organization: what the user's export answers
 * alone while that erasure's status record exists (docs/api.md, users/export). The erasure writes
 * it as it ends, in the migrations table, and it expires with the status record:
 *
 *   last erasure   pk = ERASED#<org>#<user>   sk = ERASED   erasureId, expiresAt
 */

export const lastErasureKey = (organizationId: string, userId: string) => ({
  pk: `ERASED#${escapeKeyPart(organizationId)}#${escapeKeyPart(userId)}`,
  sk: 'ERASED',
});

export const LAST_ERASURE_GRANTS = {
  mark: { tables: { migrations: ['PutItem'] } },
  find: { tables: { migrations: ['GetItem'] } },
} as const satisfies Record<'mark' | 'find', StoreAccess>;

export class DynamoLastErasure {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Names `erasureId` the user's last erasure (a later one replaces it), expiring with its record. */
  async mark(organizationId: string, userId: string, erasureId: string, at: Date): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...lastErasureKey(organizationId, userId),
          erasureId,
          [ERASURE_TTL_ATTRIBUTE]: erasureExpiry(at.toISOString()),
        },
      }),
    );
  }

  async find(organizationId: string, userId: string): Promise<string | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: lastErasureKey(organizationId, userId), ConsistentRead: true }),
    );
    return typeof Item?.erasureId === 'string' ? Item.erasureId : undefined;
  }
}

/** The status record of the user's last erasure, if it completed and still exists. */
export const lastCompletedErasure = async (
  {
    last,
    repository,
  }: { last: Pick<DynamoLastErasure, 'find'>; repository: Pick<JobRepository<ErasureRecord>, 'get'> },
  organizationId: string,
  userId: string,
): Promise<ErasureView | undefined> => {
  const erasureId = await last.find(organizationId, userId);
  const record = erasureId === undefined ? undefined : await repository.get(erasureId);
  const mine = record?.organizationId === organizationId && record.userId === userId;
  return record && mine && record.status === 'completed' ? erasureJob.view(record, false) : undefined;
};
