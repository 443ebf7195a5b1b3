import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditional, isConditionFailure } from '#shared/platform/conditional-write.js';

/*
 * The record of an `Idempotency-Key` (docs/api.md, Idempotency-Key), in the jobs table beside the
 * jobs it starts: one item per credential and key, claimed by a conditional write, then holding
 * the first answer until it expires (the table's TTL attribute; 24 hours).
 *
 *   pk = IDEMPOTENCY#<sha-256 of the api key and the key>    sk = KEY
 */

/** How long a key answers what it first answered. */
export const IDEMPOTENCY_LIFETIME_SECONDS = 24 * 60 * 60;

/**
 * How long a claim holds without an answer: an API function's whole time (29 s) and a little
 * more. A repeat after that (the first attempt's function stopped before it could record) starts
 * over, which a job start survives: it answers the active job's id.
 */
export const IDEMPOTENCY_CLAIM_MS = 30_000;

/** The table's TTL attribute (epoch seconds: services/tables.ts). */
const TTL_ATTRIBUTE = 'expiresAt';
const SK = 'KEY';

export interface IdempotencyRequest {
  apiKey: string;
  key: string;
  /** What identifies the request the key was first used with: its operation and its `data`. */
  fingerprint: string;
}

export type Claim =
  | { outcome: 'claimed'; claimId: string }
  | { outcome: 'answered'; fingerprint: string; answer: string }
  | { outcome: 'in_progress'; fingerprint: string };

/** What the edge's idempotency middleware (shared/edge/middlewares/idempotency.ts) needs of storage. */
export interface IdempotencyStore {
  /** Takes the key for this request, or tells what holds it. */
  claim(request: IdempotencyRequest, now: number): Promise<Claim>;
  /** Records the answer of a claimed request: what every repeat of it answers. */
  record(request: IdempotencyRequest, claimId: string, answer: string, now: number): Promise<void>;
  /** Gives a claim up (the request failed): a repeat runs again. */
  release(request: IdempotencyRequest, claimId: string): Promise<void>;
}

export const fingerprintOf = (operation: string, data: unknown): string =>
  createHash('sha256')
    .update(`${operation}\n${JSON.stringify(data)}`)
    .digest('base64url');

const keyOf = ({ apiKey, key }: IdempotencyRequest) => ({
  pk: `IDEMPOTENCY#${createHash('sha256').update(`${apiKey}\n${key}`).digest('base64url')}`,
  sk: SK,
});

interface KeyItem {
  fingerprint: string;
  claimId: string;
  answer?: string;
  claimedUntil: number;
}

export class DynamoIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(request: IdempotencyRequest, now: number, again = true): Promise<Claim> {
    const claimId = randomUUID();
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keyOf(request),
            fingerprint: request.fingerprint,
            claimId,
            claimedUntil: now + IDEMPOTENCY_CLAIM_MS,
            [TTL_ATTRIBUTE]: Math.floor(now / 1000) + IDEMPOTENCY_LIFETIME_SECONDS,
          },
          // Free: never used, expired (TTL deletes late), or claimed by an attempt that never answered.
          ConditionExpression:
            'attribute_not_exists(pk) OR #ttl < :nowSeconds OR (attribute_not_exists(answer) AND claimedUntil < :now)',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000), ':now': now },
        }),
      );
      return { outcome: 'claimed', claimId };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(request), ConsistentRead: true }),
    );
    const held = Item as KeyItem | undefined;
    // Gone since (released, or expired and deleted): free again.
    if (!held)
      return again ? this.claim(request, now, false) : { outcome: 'in_progress', fingerprint: request.fingerprint };
    // The SDK's retry of this very claim, whose first attempt was applied.
    if (held.claimId === claimId) return { outcome: 'claimed', claimId };
    return held.answer === undefined
      ? { outcome: 'in_progress', fingerprint: held.fingerprint }
      : { outcome: 'answered', fingerprint: held.fingerprint, answer: held.answer };
  }

  async record(request: IdempotencyRequest, claimId: string, answer: string, now: number): Promise<void> {
    // Nothing to do once another attempt took the key over (this claim lapsed).
    await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keyOf(request),
            fingerprint: request.fingerprint,
            claimId,
            claimedUntil: now,
            answer,
            [TTL_ATTRIBUTE]: Math.floor(now / 1000) + IDEMPOTENCY_LIFETIME_SECONDS,
          },
          ConditionExpression: 'claimId = :claimId',
          ExpressionAttributeValues: { ':claimId': claimId },
        }),
      ),
    );
  }

  async release(request: IdempotencyRequest, claimId: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keyOf(request),
          ConditionExpression: 'claimId = :claimId AND attribute_not_exists(answer)',
          ExpressionAttributeValues: { ':claimId': claimId },
        }),
      ),
    );
  }
}
