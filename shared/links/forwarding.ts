import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { escapeKeyPart } from '#shared/platform/key-parts.js';
import { DAY_SECONDS, MAX_LINK_SECONDS } from './model.js';

/*
 * Links follow migrated documents (docs/design.md, Links and migrated documents). A migration that
 * completes leaves a forwarding record in the migrations table, keyed by the organization and the
 * old document id, naming the new one. A link's page reads the record of its document in its one
 * read (the migrations table is read in the same BatchGetItem as the config table) and follows it,
 * one read per further hop, through a chain of migrations. A record is kept as long as a link can
 * live after the migration, then expires (the table's TTL attribute).
 *
 *   pk = FORWARD#<org>#<documentId>   sk = FORWARD
 *
 * A hop is followed only when its migration completed after the one that led to it, so that a
 * document migrated away and back (A to B, then B to A) stops where its entries are.
 */

export const FORWARD_SK = 'FORWARD';
/** Hops followed at most: a longer chain ends where the last hop leads. */
export const MAX_FORWARD_HOPS = 8;
/** The migrations table's TTL attribute (epoch seconds). */
export const FORWARD_TTL_ATTRIBUTE = 'expiresAt';

export const forwardKey = (organizationId: string, documentId: string) => ({
  pk: `FORWARD#${escapeKeyPart(organizationId)}#${escapeKeyPart(documentId)}`,
  sk: FORWARD_SK,
});

/** A forwarding record as read. */
export interface Forward {
  newDocumentId: string;
  /** ISO-8601: when the migration completed. */
  forwardedAt: string;
}

export const forwardOf = (item: Record<string, unknown> | undefined): Forward | undefined =>
  item && typeof item.newDocumentId === 'string' && typeof item.forwardedAt === 'string'
    ? { newDocumentId: item.newDocumentId, forwardedAt: item.forwardedAt }
    : undefined;

/** Whether to follow `next`, reached through a record of `previous` (none: the link's own document). */
export const followsOn = (next: Forward | undefined, previous: Forward | undefined): next is Forward =>
  next !== undefined && (previous === undefined || next.forwardedAt > previous.forwardedAt);

/** What a completed migration writes. */
export interface ForwardWriter {
  forward(
    record: { organizationId: string; documentId: string; newDocumentId: string; migrationId: string },
    at: Date,
  ): Promise<void>;
}

export class DynamoForwardWriter implements ForwardWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** One UpdateItem, safe to repeat (a redelivered completion writes the same record again). */
  async forward(
    { organizationId, documentId, newDocumentId, migrationId }: Parameters<ForwardWriter['forward']>[0],
    at: Date,
  ): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: forwardKey(organizationId, documentId),
        UpdateExpression: 'SET #new = :new, #at = :at, #migration = :migration, #expires = :expires',
        ExpressionAttributeNames: {
          '#new': 'newDocumentId',
          '#at': 'forwardedAt',
          '#migration': 'migrationId',
          '#expires': FORWARD_TTL_ATTRIBUTE,
        },
        ExpressionAttributeValues: {
          ':new': newDocumentId,
          ':at': at.toISOString(),
          ':migration': migrationId,
          ':expires': Math.floor(at.getTime() / 1000) + MAX_LINK_SECONDS + DAY_SECONDS,
        },
      }),
    );
  }
}
