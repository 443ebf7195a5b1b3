import { createHmac } from 'node:crypto';
import { BatchGetCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { ifConditionHolds } from '#shared/platform/conditional-write.js';
import { TOMBSTONE_TTL_ATTRIBUTE } from '#shared/preferences/tombstone.js';
import type { Keyring, LinkKey } from './keyring.js';
import { DAY_SECONDS, MAX_LINK_SECONDS, type OpenedLink } from './model.js';

/*
 * Revoking links (docs/design.md, Links in emails: Revocation): links/revoke and every erasure of a user write,
 * per key of the keyring, one small item of the config table that says "every link of this user
 * issued before T is revoked". Its key is an HMAC of (organization, user) under that key's
 * revocation key, so the item holds no identifier: what an erasure leaves of the user is this keyed
 * hash, and it expires once the last link it could revoke has expired. It lives in the config
 * table so that the one read of a link's page fetches it with the entries and the policy. It has
 * no organizationId or userId attribute: the index of a user's entries never holds it, and the
 * change publisher passes over its stream records.
 *
 *   pk = REVOKED#<keyId>#<base64url HMAC-SHA256(JSON [organizationId, userId])>   sk = REVOKED
 */

export const REVOKED_SK = 'REVOKED';
/** Epoch seconds: links issued (iat) before it are revoked. */
export const REVOKED_BEFORE_ATTRIBUTE = 'revokedBefore';
/** Kept one day longer than a link can live, for clocks that differ. */
export const REVOCATION_LIFETIME_SECONDS = MAX_LINK_SECONDS + DAY_SECONDS;

export const revocationHash = (key: LinkKey, organizationId: string, userId: string): string =>
  createHmac('sha256', key.revocation)
    .update(JSON.stringify([organizationId, userId]))
    .digest('base64url');

export const revocationKey = (key: LinkKey, organizationId: string, userId: string) => ({
  pk: `REVOKED#${key.id}#${revocationHash(key, organizationId, userId)}`,
  sk: REVOKED_SK,
});

/** Whether a revocation item read from the table revokes the link. */
export const isRevoked = (link: Pick<OpenedLink, 'issuedAt'>, item: Record<string, unknown> | undefined): boolean => {
  const before = item?.[REVOKED_BEFORE_ATTRIBUTE];
  return typeof before === 'number' && link.issuedAt < before;
};

/** What revokes links: links/revoke and the erasure job. */
export interface LinkRevoker {
  /** Every link of these users issued up to `at` (to the second) stops working; safe to repeat. */
  revoke(
    organizationId: string,
    userIds: readonly string[],
    at: Date,
    options?: { signal?: AbortSignal },
  ): Promise<void>;
}

/** Revocation writes in flight at once. */
export const REVOKE_CONCURRENCY = 32;

/**
 * Writes the revocations: one conditional UpdateItem per (key, user), which only moves the time
 * forward, so that a revocation that lands late never shortens a later one.
 */
export class DynamoLinkRevoker implements LinkRevoker {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly keys: { keyring(): Promise<Keyring> },
  ) {}

  async revoke(
    organizationId: string,
    userIds: readonly string[],
    at: Date,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const keyring = await this.keys.keyring();
    // Links issued within the same second are revoked too: `iat` counts whole seconds.
    const before = Math.floor(at.getTime() / 1000) + 1;
    const writes = [...keyring.byId.values()].flatMap((key) => userIds.map((userId) => ({ key, userId })));
    await pMap(
      writes,
      ({ key, userId }) =>
        ifConditionHolds(() =>
          this.client.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: revocationKey(key, organizationId, userId),
              UpdateExpression: 'SET #before = :before, #expires = :expires',
              ConditionExpression: 'attribute_not_exists(#before) OR #before < :before',
              ExpressionAttributeNames: { '#before': REVOKED_BEFORE_ATTRIBUTE, '#expires': TOMBSTONE_TTL_ATTRIBUTE },
              ExpressionAttributeValues: { ':before': before, ':expires': before + REVOCATION_LIFETIME_SECONDS },
            }),
            { abortSignal: signal },
          ),
        ),
      { concurrency: REVOKE_CONCURRENCY, signal },
    );
  }
}

/**
 * When the user's links were last revoked (a person's data, in their export): the latest
 * `revokedBefore` of the user's revocation items under every key of the keyring, one BatchGetItem.
 */
export class DynamoRevocationReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly keys: { keyring(): Promise<Keyring> },
  ) {}

  /** Epoch seconds: links issued before it are revoked; undefined when none ever were (or the record expired). */
  async revokedBefore(organizationId: string, userId: string): Promise<number | undefined> {
    const keyring = await this.keys.keyring();
    const keys = [...keyring.byId.values()].map((key) => revocationKey(key, organizationId, userId));
    const output = await this.client.send(
      new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
    );
    const times = (output.Responses?.[this.tableName] ?? [])
      .map((item) => item[REVOKED_BEFORE_ATTRIBUTE])
      .filter((before): before is number => typeof before === 'number');
    return times.length > 0 ? Math.max(...times) : undefined;
  }
}
