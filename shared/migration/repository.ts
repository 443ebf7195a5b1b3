import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { lockKey, migrationKey } from './keys.js';
import type { MigrationLock, MigrationRecord } from './model.js';

/** Progress of one page, saved under the lease before the page's source entries are deleted. */
export interface PageProgress {
  movedDelta: number;
  skippedDelta: number;
  run: string;
  page: number;
  skippedCheckpoint: string[];
  leaseUntil: number;
  at: string;
}

/** The migrations table as the migration code uses it; every write is conditional. */
export interface MigrationRepository {
  create(record: MigrationRecord): Promise<void>;
  get(migrationId: string): Promise<MigrationRecord | undefined>;
  markQueued(migrationId: string, at: string): Promise<void>;
  /**
   * Marks an active migration failed. With `owner`, only if no other delivery holds a live
   * lease on it; with `onlyIfUnqueued`, only if it is still pending and was never queued.
   * Returns false when the condition did not hold.
   */
  fail(
    migrationId: string,
    reason: string,
    at: Date,
    guard: { owner: string } | { onlyIfUnqueued: true },
  ): Promise<boolean>;

  getLock(organizationId: string, documentId: string): Promise<MigrationLock | undefined>;
  /** Takes the lock if it is free, or if it is still held by `takeOverFrom` (a stale holder). */
  putLock(lock: MigrationLock, takeOverFrom?: string): Promise<boolean>;
  /** Releases the lock if this migration holds it. */
  releaseLock(organizationId: string, documentId: string, migrationId: string): Promise<void>;

  /** Starts or resumes work: returns the record when the lease was free, expired or already ours. */
  acquireLease(migrationId: string, owner: string, until: number, now: Date): Promise<MigrationRecord | undefined>;
  /** Returns false when the lease is no longer ours. */
  saveProgress(migrationId: string, owner: string, progress: PageProgress): Promise<boolean>;
  releaseLease(migrationId: string, owner: string): Promise<void>;
  /** Returns false when the lease is no longer ours. */
  complete(migrationId: string, owner: string, at: string): Promise<boolean>;
}

type Item = Record<string, unknown>;

const isConditionFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

/** Runs a conditional write: true when applied, false when its condition did not hold. */
const conditional = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

const toRecord = (item: Item): MigrationRecord => {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return { runs: {}, skippedCheckpoint: [], ...rest } as unknown as MigrationRecord;
};

const ACTIVE = { ':pending': 'pending', ':inProgress': 'in_progress' };

export class DynamoMigrationRepository implements MigrationRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async create(record: MigrationRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...migrationKey(record.migrationId), ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(migrationId: string): Promise<MigrationRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: migrationKey(migrationId), ConsistentRead: true }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async markQueued(migrationId: string, at: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: migrationKey(migrationId),
          UpdateExpression: 'SET queuedAt = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
  }

  fail(
    migrationId: string,
    reason: string,
    at: Date,
    guard: { owner: string } | { onlyIfUnqueued: true },
  ): Promise<boolean> {
    const byOwner = 'owner' in guard;
    return conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: migrationKey(migrationId),
          UpdateExpression: 'SET #status = :failed, #error = :reason, updatedAt = :at REMOVE leaseOwner, leaseUntil',
          ConditionExpression: byOwner
            ? '#status IN (:pending, :inProgress) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)'
            : '#status = :pending AND attribute_not_exists(queuedAt)',
          ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
          ExpressionAttributeValues: {
            ':failed': 'failed',
            ':reason': reason,
            ':at': at.toISOString(),
            ':pending': 'pending',
            ...(byOwner ? { ':inProgress': 'in_progress', ':nowMs': at.getTime(), ':owner': guard.owner } : {}),
          },
        }),
      ),
    );
  }

  async getLock(organizationId: string, documentId: string): Promise<MigrationLock | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: lockKey(organizationId, documentId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...lock } = Item;
    return lock as MigrationLock;
  }

  putLock(lock: MigrationLock, takeOverFrom?: string): Promise<boolean> {
    return conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...lockKey(lock.organizationId, lock.documentId), ...lock },
          ...(takeOverFrom === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: 'migrationId = :holder',
                ExpressionAttributeValues: { ':holder': takeOverFrom },
              }),
        }),
      ),
    );
  }

  async releaseLock(organizationId: string, documentId: string, migrationId: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: lockKey(organizationId, documentId),
          ConditionExpression: 'migrationId = :id',
          ExpressionAttributeValues: { ':id': migrationId },
        }),
      ),
    );
  }

  async acquireLease(
    migrationId: string,
    owner: string,
    until: number,
    now: Date,
  ): Promise<MigrationRecord | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: migrationKey(migrationId),
          UpdateExpression:
            'SET leaseOwner = :owner, leaseUntil = :until, #status = :inProgress, updatedAt = :at, startedAt = if_not_exists(startedAt, :at)',
          ConditionExpression:
            'attribute_exists(pk) AND #status IN (:pending, :inProgress) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ...ACTIVE,
            ':owner': owner,
            ':until': until,
            ':at': now.toISOString(),
            ':nowMs': now.getTime(),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? toRecord(Attributes) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  saveProgress(migrationId: string, owner: string, progress: PageProgress): Promise<boolean> {
    return conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: migrationKey(migrationId),
          UpdateExpression:
            'ADD moved :moved, skipped :skipped SET #runs.#run = :page, skippedCheckpoint = :checkpoint, leaseUntil = :until, updatedAt = :at',
          ConditionExpression: 'leaseOwner = :owner AND #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status', '#runs': 'runs', '#run': progress.run },
          ExpressionAttributeValues: {
            ':moved': progress.movedDelta,
            ':skipped': progress.skippedDelta,
            ':page': progress.page,
            ':checkpoint': progress.skippedCheckpoint,
            ':until': progress.leaseUntil,
            ':at': progress.at,
            ':owner': owner,
            ':inProgress': 'in_progress',
          },
        }),
      ),
    );
  }

  async releaseLease(migrationId: string, owner: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: migrationKey(migrationId),
          UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
          ConditionExpression: 'leaseOwner = :owner',
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }

  complete(migrationId: string, owner: string, at: string): Promise<boolean> {
    return conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: migrationKey(migrationId),
          UpdateExpression:
            'SET #status = :completed, completedAt = :at, updatedAt = :at REMOVE leaseOwner, leaseUntil, skippedCheckpoint',
          ConditionExpression: 'leaseOwner = :owner AND #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':at': at,
            ':owner': owner,
            ':inProgress': 'in_progress',
          },
        }),
      ),
    );
  }
}
