import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { conditional, conditionalOrOwn, ifConditionHolds } from '#shared/platform/conditional-write.js';
import { erasureKey, erasureLockKey } from './keys.js';
import { type ErasureRecord, erasureExpiry } from './model.js';

/** The lock of one user in one organization: the erasure active for them. */
export interface ErasureLock {
  organizationId: string;
  userId: string;
  erasureId: string;
  createdAt: string;
}

/** Progress of one page, saved under the lease before the page's entries are deleted. */
export interface ErasureProgress {
  erasedDelta: number;
  run: string;
  page: number;
  leaseUntil: number;
  at: string;
}

/** Erasure records and user locks in the migrations table; every write is conditional. */
export interface ErasureRepository {
  create(record: ErasureRecord): Promise<void>;
  get(erasureId: string): Promise<ErasureRecord | undefined>;
  markQueued(erasureId: string, at: string): Promise<void>;
  getLock(organizationId: string, userId: string): Promise<ErasureLock | undefined>;
  /** Takes the lock if free, or if still held by `takeOverFrom` (a finished or abandoned erasure). */
  putLock(lock: ErasureLock, takeOverFrom?: string): Promise<boolean>;
  releaseLock(organizationId: string, userId: string, erasureId: string): Promise<void>;
  /** Starts or resumes work: the record when the lease was free, expired or already ours. */
  acquireLease(erasureId: string, owner: string, until: number, now: Date): Promise<ErasureRecord | undefined>;
  saveProgress(erasureId: string, owner: string, progress: ErasureProgress): Promise<boolean>;
  releaseLease(erasureId: string, owner: string): Promise<void>;
  complete(erasureId: string, owner: string, at: string): Promise<boolean>;
  /** Marks an active erasure failed: with `owner`, unless another delivery holds a live lease; or only if never queued. */
  fail(
    erasureId: string,
    reason: string,
    at: Date,
    guard: { owner: string } | { onlyIfUnqueued: true },
  ): Promise<boolean>;
}

type Item = Record<string, unknown>;

const toRecord = (item: Item): ErasureRecord => {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return { runs: {}, ...rest } as unknown as ErasureRecord;
};

export class DynamoErasureRepository implements ErasureRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  /** An UpdateItem of the record `erasureId`: what differs between the writes, and nothing else. */
  private updateRecord(
    erasureId: string,
    input: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
  ): Promise<UpdateCommandOutput> {
    return this.client.send(new UpdateCommand({ TableName: this.tableName, Key: erasureKey(erasureId), ...input }));
  }

  async create(record: ErasureRecord): Promise<void> {
    const created = await conditionalOrOwn(
      () =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...erasureKey(record.erasureId), ...record },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      // The id is new, so a record already there can only be this one.
      async () => {
        const existing = await this.get(record.erasureId);
        return existing?.userId === record.userId && existing.createdAt === record.createdAt;
      },
    );
    if (!created) throw new Error(`Erasure ${record.erasureId} already exists`);
  }

  async get(erasureId: string): Promise<ErasureRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: erasureKey(erasureId), ConsistentRead: true }),
    );
    return Item ? toRecord(Item) : undefined;
  }

  async markQueued(erasureId: string, at: string): Promise<void> {
    await conditional(() =>
      this.updateRecord(erasureId, {
        UpdateExpression: 'SET queuedAt = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }

  async getLock(organizationId: string, userId: string): Promise<ErasureLock | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: erasureLockKey(organizationId, userId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, ...lock } = Item;
    return lock as ErasureLock;
  }

  putLock(lock: ErasureLock, takeOverFrom?: string): Promise<boolean> {
    return conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...erasureLockKey(lock.organizationId, lock.userId), ...lock },
          ...(takeOverFrom === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'erasureId = :holder', ExpressionAttributeValues: { ':holder': takeOverFrom } }),
        }),
      ),
    );
  }

  async releaseLock(organizationId: string, userId: string, erasureId: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: erasureLockKey(organizationId, userId),
          ConditionExpression: 'erasureId = :id',
          ExpressionAttributeValues: { ':id': erasureId },
        }),
      ),
    );
  }

  async acquireLease(erasureId: string, owner: string, until: number, now: Date): Promise<ErasureRecord | undefined> {
    const output = await ifConditionHolds(() =>
      this.updateRecord(erasureId, {
        UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until, #status = :inProgress, updatedAt = :at',
        ConditionExpression:
          'attribute_exists(pk) AND #status IN (:pending, :inProgress) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':inProgress': 'in_progress',
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

  saveProgress(erasureId: string, owner: string, progress: ErasureProgress): Promise<boolean> {
    return conditionalOrOwn(
      () =>
        this.updateRecord(erasureId, {
          UpdateExpression: 'ADD erased :erased SET #runs.#run = :page, leaseUntil = :until, updatedAt = :at',
          // Each page of a run once: a repeat must not add its count again.
          ConditionExpression:
            'leaseOwner = :owner AND #status = :inProgress AND (attribute_not_exists(#runs.#run) OR #runs.#run < :page)',
          ExpressionAttributeNames: { '#status': 'status', '#runs': 'runs', '#run': progress.run },
          ExpressionAttributeValues: {
            ':erased': progress.erasedDelta,
            ':page': progress.page,
            ':until': progress.leaseUntil,
            ':at': progress.at,
            ':owner': owner,
            ':inProgress': 'in_progress',
          },
        }),
      // As for a migration: the SDK's retry of a page saved but answered late.
      async () => {
        const current = await this.get(erasureId);
        return current?.leaseOwner === owner && current.runs[progress.run] === progress.page;
      },
    );
  }

  async releaseLease(erasureId: string, owner: string): Promise<void> {
    await conditional(() =>
      this.updateRecord(erasureId, {
        UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
        ConditionExpression: 'leaseOwner = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  }

  complete(erasureId: string, owner: string, at: string): Promise<boolean> {
    return conditionalOrOwn(
      () =>
        this.updateRecord(erasureId, {
          UpdateExpression:
            'SET #status = :completed, completedAt = :at, updatedAt = :at, expiresAt = :expires REMOVE leaseOwner, leaseUntil',
          ConditionExpression: 'leaseOwner = :owner AND #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':at': at,
            ':expires': erasureExpiry(at),
            ':owner': owner,
            ':inProgress': 'in_progress',
          },
        }),
      // As for a migration: the SDK's retry of a completion answered late.
      async () => {
        const current = await this.get(erasureId);
        return current?.status === 'completed' && current.completedAt === at;
      },
    );
  }

  fail(
    erasureId: string,
    reason: string,
    at: Date,
    guard: { owner: string } | { onlyIfUnqueued: true },
  ): Promise<boolean> {
    const byOwner = 'owner' in guard;
    return conditional(() =>
      this.updateRecord(erasureId, {
        UpdateExpression:
          'SET #status = :failed, #error = :reason, updatedAt = :at, expiresAt = :expires REMOVE leaseOwner, leaseUntil',
        ConditionExpression: byOwner
          ? '#status IN (:pending, :inProgress) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs OR leaseOwner = :owner)'
          : '#status = :pending AND attribute_not_exists(queuedAt)',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':reason': reason,
          ':at': at.toISOString(),
          ':expires': erasureExpiry(at.toISOString()),
          ':pending': 'pending',
          ...(byOwner ? { ':inProgress': 'in_progress', ':nowMs': at.getTime(), ':owner': guard.owner } : {}),
        },
      }),
    );
  }
}
