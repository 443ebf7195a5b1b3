import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimit } from './credential.js';
import type { RateLimitStore } from './rate-limit.js';

/**
 * The shared buckets: one item per credential (`apiKey`) holding GCRA's theoretical arrival time
 * `tat` (epoch ms): the bucket is full while `tat <= now`, and taking k permits moves it k emission
 * intervals later, allowed while it stays within `burst` intervals of now. Each take is one
 * conditional update; when its condition fails the item's current `tat` comes back with the
 * failure (no read), and decides the one other update worth trying.
 */
export class DynamoRateLimitStore implements RateLimitStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async take(
    apiKey: string,
    wanted: number,
    { perSecond, burst }: RateLimit,
    now: number,
  ): Promise<{ taken: number; retryAfterMs: number }> {
    const interval = 1000 / perSecond;
    const capacity = burst * interval;
    let known: number | undefined = this.lastTat.get(apiKey);
    // At most three updates: the guess, then the one the returned `tat` calls for, then a retry
    // of that one if another instance moved the bucket meanwhile.
    for (let attempt = 0; attempt < 3; attempt++) {
      const busy = known !== undefined && known > now;
      const available = busy ? Math.floor((now + capacity - (known as number)) / interval) : burst;
      if (available < 1) {
        return { taken: 0, retryAfterMs: (known as number) + interval - capacity - now };
      }
      const k = Math.min(wanted, available);
      const result = busy
        ? await this.fromBusy(apiKey, k * interval, now + capacity - k * interval, now)
        : await this.fromFull(apiKey, now + k * interval, now);
      if (result.ok) {
        this.remember(apiKey, result.tat);
        return { taken: k, retryAfterMs: 0 };
      }
      known = result.tat;
    }
    return { taken: 0, retryAfterMs: interval };
  }

  /** The `tat` this instance last saw per credential: the first guess of the next take. */
  private readonly lastTat = new Map<string, number>();

  private remember(apiKey: string, tat: number) {
    if (this.lastTat.size >= 1000) this.lastTat.delete(this.lastTat.keys().next().value as string);
    this.lastTat.set(apiKey, tat);
  }

  /** The bucket is full (or new): its `tat` becomes `to`. */
  private fromFull(apiKey: string, to: number, now: number) {
    return this.update(apiKey, {
      UpdateExpression: 'SET tat = :to',
      ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
      ExpressionAttributeValues: { ':to': to, ':now': now },
    });
  }

  /** The bucket is in use: its `tat` moves by `by`, if it stays within the burst (`tat <= :latest`). */
  private fromBusy(apiKey: string, by: number, latest: number, now: number) {
    return this.update(apiKey, {
      UpdateExpression: 'SET tat = tat + :by',
      ConditionExpression: 'tat > :now AND tat <= :latest',
      ExpressionAttributeValues: { ':by': by, ':now': now, ':latest': latest },
    });
  }

  private async update(
    apiKey: string,
    input: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, number> },
  ): Promise<{ ok: true; tat: number } | { ok: false; tat: number | undefined }> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { apiKey },
          ...input,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { ok: true, tat: Number(Attributes?.tat) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const tat = error.Item?.tat;
      return { ok: false, tat: tat === undefined ? undefined : Number((tat as { N?: string }).N ?? tat) };
    }
  }
}
