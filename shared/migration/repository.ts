import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { conditional, conditionalOrOwn, ifConditionHolds } from '#shared/platform/conditional-write.js';
import { ACTIVE_INDEX, ACTIVE_PK, ACTIVE_PK_ATTRIBUTE, lockKey, migrationKey } from './keys.js';
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

/**
 * When `fail` may mark a migration failed (it must be active in every case):
 * - `owner`: no other delivery holds a live lease on it; with `updatedAt`, also only if it has
 *   made no progress since that read (the sweeper's guard);
 * - `onlyIfUnqueued`: it is still pending and was never queued;
 * - `evenIfLeased`: whoever holds it (an operator's forced failure; the holder stops at its next save).
 */
export type FailGuard = { owner: string; updatedAt?: string } | { onlyIfUnqueued: true } | { evenIfLeased: true };

/** The record as read: a re-queue applies only if neither has changed since. */
export interface SeenRecord {
  migrationId: string;
  updatedAt: string;
  sweptAt?: string;
}

/** The migrations table as the migration code uses it; every write is conditional. */
export interface MigrationRepository {
  create(record: MigrationRecord): Promise<void>;
  get(migrationId: string): Promise<MigrationRecord | undefined>;
  markQueued(migrationId: string, at: string): Promise<void>;
  /** Marks an active migration failed if `guard` holds; returns false when it did not. */
  fail(migrationId: string, reason: string, at: Date, guard: FailGuard): Promise<boolean>;
  /**
   * Active migrations whose `updatedAt` is before `before`, oldest first, at most `limit`
   * (from the sparse index: eventually consistent, so each write after it is guarded).
   */
  listQuiet(before: string, limit: number): Promise<MigrationRecord[]>;
  /**
   * Records a re-queue of a stalled migration, before its message is sent: sets `sweptAt` and
   * counts it in `sweepResumes` (or, with `resetCount`, an operator's, starts the count over).
   * Only if the record is still active, unchanged since `seen` and without a live lease.
   */
  markResumed(seen: SeenRecord, at: Date, options?: { resetCount?: boolean }): Promise<boolean>;

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

const toRecord = (item: Item): MigrationRecord => {
  const { pk: _pk, sk: _sk, [ACTIVE_PK_ATTRIBUTE]: _active, ...rest } = item;
  return { runs: {}, skippedCheckpoint: [], ...rest } as unknown as MigrationRecord;
};

const isSameCreation = (a: MigrationRecord, b: MigrationRecord): boolean =>
  a.organizationId === b.organizationId &&
  a.documentId === b.documentId &&
  a.newDocumentId === b.newDocumentId &&
  a.createdAt === b.createdAt;

const ACTIVE = { ':pending': 'pending', ':inProgress': 'in_progress' };

export class DynamoMigrationRepository implements MigrationRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  /** An UpdateItem of the record `migrationId`: what differs between the writes, and nothing else. */
  private updateRecord(
    migrationId: string,
    input: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
  ): Promise<UpdateCommandOutput> {
    return this.client.send(new UpdateCommand({ TableName: this.tableName, Key: migrationKey(migrationId), ...input }));
  }

  async create(record: MigrationRecord): Promise<void> {
    const created = await conditionalOrOwn(
      () =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            // In the index of active migrations until it completes or fails.
            Item: { ...migrationKey(record.migrationId), ...record, [ACTIVE_PK_ATTRIBUTE]: ACTIVE_PK },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      // The id is new, so a record already there can only be this one.
      async () => {
        const existing = await this.get(record.migrationId);
        return existing !== undefined && isSameCreation(existing, record);
      },
    );
    if (!created) throw new Error(`Migration ${record.migrationId} already exists`);
  }

  async get(migrationId: string): Promise<MigrationRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: migrationKey(migrationId), ConsistentRead: true }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async markQueued(migrationId: string, at: string): Promise<void> {
    await conditional(() =>
      this.updateRecord(migrationId, {
        UpdateExpression: 'SET queuedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }

  fail(migrationId: string, reason: string, at: Date, guard: FailGuard): Promise<boolean> {
    const active = '#status IN (:pending, :inProgress)';
    let condition: string;
    let values: Item;
    if ('onlyIfUnqueued' in guard) {
      condition = '#status = :pending AND attribute_not_exists(queuedAt)';
      values = {};
    } else if ('evenIfLeased' in guard) {
      condition = active;
      values = { ':inProgress': 'in_progress' };
    } else {
      condition = `${active} AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)`;
      values = { ':inProgress': 'in_progress', ':nowMs': at.getTime(), ':owner': guard.owner };
      if (guard.updatedAt !== undefined) {
        condition += ' AND updatedAt = :seen';
        values[':seen'] = guard.updatedAt;
      }
    }
    return conditional(() =>
      this.updateRecord(migrationId, {
        UpdateExpression: `SET #status = :failed, #error = :reason, updatedAt = :at REMOVE leaseOwner, leaseUntil, ${ACTIVE_PK_ATTRIBUTE}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':reason': reason,
          ':at': at.toISOString(),
          ':pending': 'pending',
          ...values,
        },
      }),
    );
  }

  async listQuiet(before: string, limit: number): Promise<MigrationRecord[]> {
    const records: MigrationRecord[] = [];
    let start: Item | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: ACTIVE_INDEX,
          KeyConditionExpression: '#active = :active AND updatedAt < :before',
          ExpressionAttributeNames: { '#active': ACTIVE_PK_ATTRIBUTE },
          ExpressionAttributeValues: { ':active': ACTIVE_PK, ':before': before },
          Limit: limit - records.length,
          ExclusiveStartKey: start,
        }),
      );
      records.push(...(page.Items ?? []).map(toRecord));
      start = page.LastEvaluatedKey;
    } while (start && records.length < limit);
    return records;
  }

  markResumed(seen: SeenRecord, at: Date, { resetCount = false }: { resetCount?: boolean } = {}): Promise<boolean> {
    return conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: migrationKey(seen.migrationId),
          UpdateExpression: resetCount
            ? 'SET sweptAt = :at REMOVE sweepResumes'
            : 'SET sweptAt = :at ADD sweepResumes :one',
          // Unchanged since read: a delivery that meanwhile took the lease or saved a page, or a
          // concurrent sweep that re-queued it already, wins, and nothing is sent.
          ConditionExpression:
            '#status IN (:pending, :inProgress) AND updatedAt = :seen AND ' +
            (seen.sweptAt === undefined ? 'attribute_not_exists(sweptAt)' : 'sweptAt = :seenSwept') +
            ' AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ...ACTIVE,
            ':at': at.toISOString(),
            ':seen': seen.updatedAt,
            ':nowMs': at.getTime(),
            ...(resetCount ? {} : { ':one': 1 }),
            ...(seen.sweptAt === undefined ? {} : { ':seenSwept': seen.sweptAt }),
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
    const output = await ifConditionHolds(() =>
      this.updateRecord(migrationId, {
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
    return output?.Attributes ? toRecord(output.Attributes) : undefined;
  }

  saveProgress(migrationId: string, owner: string, progress: PageProgress): Promise<boolean> {
    return conditionalOrOwn(
      () =>
        this.updateRecord(migrationId, {
          UpdateExpression:
            // A saved page is progress: the sweeper's count of re-queues starts over.
            'ADD moved :moved, skipped :skipped SET #runs.#run = :page, skippedCheckpoint = :checkpoint, leaseUntil = :until, updatedAt = :at REMOVE sweepResumes, sweptAt',
          // Each page of a run once: a repeat must not add its counts again.
          ConditionExpression:
            'leaseOwner = :owner AND #status = :inProgress AND (attribute_not_exists(#runs.#run) OR #runs.#run < :page)',
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
      // The SDK's retry of a page saved but answered late: the page is there, under our lease.
      async () => {
        const current = await this.get(migrationId);
        return current?.leaseOwner === owner && current.runs[progress.run] === progress.page;
      },
    );
  }

  async releaseLease(migrationId: string, owner: string): Promise<void> {
    await conditional(() =>
      this.updateRecord(migrationId, {
        UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
        ConditionExpression: 'leaseOwner = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  }

  complete(migrationId: string, owner: string, at: string): Promise<boolean> {
    return conditionalOrOwn(
      () =>
        this.updateRecord(migrationId, {
          UpdateExpression: `SET #status = :completed, completedAt = :at, updatedAt = :at REMOVE leaseOwner, leaseUntil, skippedCheckpoint, sweepResumes, sweptAt, ${ACTIVE_PK_ATTRIBUTE}`,
          ConditionExpression: 'leaseOwner = :owner AND #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':at': at,
            ':owner': owner,
            ':inProgress': 'in_progress',
          },
        }),
      // The SDK's retry of a completion answered late (the lease went with it).
      async () => {
        const current = await this.get(migrationId);
        return current?.status === 'completed' && current.completedAt === at;
      },
    );
  }
}
