import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { conditional } from '#shared/platform/conditional-write.js';
import { deliveriesPartition, deliverySortKey, webhooksKey } from './keys.js';
import { DELIVERY_RETENTION_DAYS, type DeliveryAttempt, type DisabledReason, type StoredEndpoint } from './model.js';
import { type DeliveryLog, type StoredWebhooks, type WebhookStore, WebhooksChanged } from './store.js';

type StoredFields = Omit<StoredEndpoint, 'id'>;

export class DynamoWebhookStore implements WebhookStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async get(organizationId: string): Promise<StoredWebhooks> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: webhooksKey(organizationId), ConsistentRead: true }),
    );
    if (!Item) return { endpoints: [], version: 0 };
    const byId = (Item.endpoints ?? {}) as Record<string, StoredFields>;
    const order = (Item.order ?? []) as string[];
    return {
      endpoints: order.flatMap((id) => (byId[id] ? [{ id, ...byId[id] }] : [])),
      version: Number(Item.version ?? 0),
    };
  }

  async put(
    organizationId: string,
    endpoints: readonly StoredEndpoint[],
    { updatedAt, updatedBy }: { updatedAt: string; updatedBy: string },
    expectedVersion: number,
  ): Promise<void> {
    const stored = await conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...webhooksKey(organizationId),
            organizationId,
            order: endpoints.map(({ id }) => id),
            endpoints: Object.fromEntries(endpoints.map(({ id, ...fields }) => [id, fields])),
            version: expectedVersion + 1,
            updatedAt,
            updatedBy,
          },
          ConditionExpression: expectedVersion === 0 ? 'attribute_not_exists(version)' : 'version = :expected',
          ...(expectedVersion === 0 ? {} : { ExpressionAttributeValues: { ':expected': expectedVersion } }),
        }),
      ),
    );
    if (!stored) throw new WebhooksChanged('The endpoints changed meanwhile');
  }

  /** One conditional update of one endpoint (it must still exist): whether it applied. */
  private update(
    organizationId: string,
    endpointId: string,
    update: string,
    values: Record<string, unknown>,
    condition = '',
  ): Promise<boolean> {
    return conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhooksKey(organizationId),
          UpdateExpression: update,
          ConditionExpression: `attribute_exists(endpoints.#id)${condition}`,
          ExpressionAttributeNames: { '#id': endpointId },
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        }),
      ),
    );
  }

  rotate(organizationId: string, endpointId: string, current: string, next: string, until: string): Promise<boolean> {
    return this.update(
      organizationId,
      endpointId,
      // A new version: a set that read the endpoints before it must not write the old secret back.
      'SET endpoints.#id.secret = :next, endpoints.#id.previousSecret = :current, endpoints.#id.previousUntil = :until, version = version + :one',
      { ':next': next, ':current': current, ':until': until, ':one': 1 },
      ' AND endpoints.#id.secret = :current',
    );
  }

  async reseal(
    organizationId: string,
    endpointId: string,
    field: 'secret' | 'previousSecret',
    sealed: string,
    next: string,
  ): Promise<void> {
    await this.update(
      organizationId,
      endpointId,
      `SET endpoints.#id.${field} = :next`,
      { ':next': next, ':sealed': sealed },
      ` AND endpoints.#id.${field} = :sealed`,
    );
  }

  async markFailing(organizationId: string, endpointId: string, since: string): Promise<void> {
    await this.update(
      organizationId,
      endpointId,
      'SET endpoints.#id.failingSince = :since',
      { ':since': since },
      ' AND attribute_not_exists(endpoints.#id.failingSince)',
    );
  }

  async clearFailing(organizationId: string, endpointId: string): Promise<void> {
    await this.update(organizationId, endpointId, 'REMOVE endpoints.#id.failingSince', {});
  }

  async disable(organizationId: string, endpointId: string, reason: DisabledReason): Promise<void> {
    await this.update(
      organizationId,
      endpointId,
      // A new version: a set that read the endpoint enabled must not enable it again unseen.
      'SET endpoints.#id.disabled = :true, endpoints.#id.disabledReason = :reason, version = version + :one',
      { ':true': true, ':reason': reason, ':one': 1 },
    );
  }
}

const DAY_SECONDS = 24 * 60 * 60;

export class DynamoDeliveryLog implements DeliveryLog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async record(organizationId: string, endpointId: string, attempt: DeliveryAttempt): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: deliveriesPartition(organizationId, endpointId),
          sk: deliverySortKey(attempt.attemptedAt, attempt.eventId, attempt.attempt),
          ...attempt,
          // The history table's TTL attribute (shared/history/retention.ts).
          expiresAt: Math.floor(Date.parse(attempt.attemptedAt) / 1000) + DELIVERY_RETENTION_DAYS * DAY_SECONDS,
        },
      }),
    );
  }

  async list(
    organizationId: string,
    endpointId: string,
    limit: number,
    after?: string,
  ): Promise<{ deliveries: DeliveryAttempt[]; last?: string }> {
    const pk = deliveriesPartition(organizationId, endpointId);
    const { Items = [], LastEvaluatedKey } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        Limit: limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: { pk, sk: after } }),
      }),
    );
    const deliveries = Items.map(
      ({ eventId, type, attempt, statusCode, durationMs, attemptedAt, nextAttemptAt }): DeliveryAttempt => ({
        eventId,
        type,
        attempt,
        statusCode: statusCode ?? null,
        durationMs,
        attemptedAt,
        ...(nextAttemptAt ? { nextAttemptAt } : {}),
      }),
    );
    return { deliveries, ...(LastEvaluatedKey ? { last: String(LastEvaluatedKey.sk) } : {}) };
  }
}
