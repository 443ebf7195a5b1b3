import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  conditional,
  conditionalOrOwn,
  conditionalTransaction,
  ifConditionHolds,
} from '#shared/platform/conditional-write.js';
import { ACTIVE_INDEX, ACTIVE_PK_ATTRIBUTE, recordKey } from './keys.js';
import { jobIdOf } from './kind.js';
import type { JobRecord } from './record.js';
import {
  acquireLeaseUpdate,
  claimQueueingUpdate,
  completeUpdate,
  dropPageFieldsUpdate,
  type FailGuard,
  failUpdate,
  markQueuedUpdate,
  markResumedUpdate,
  type PageProgress,
  type RecordUpdate,
  releaseLeaseUpdate,
  type SeenRecord,
  saveProgressUpdate,
} from './record-updates.js';
import { DynamoJobRecords } from './records.js';

/** The lock of one subject (a document, a user) of an organization: the active job that holds it. */
export interface JobLock {
  organizationId: string;
  subject: string;
  /** What the subject is to the job (a migration's source or target), if the kind says. */
  role?: string;
  jobId: string;
  createdAt: string;
}

/** The jobs of one kind in the migrations table, as the engine uses them; every write is conditional. */
export interface JobRepository<R extends JobRecord> {
  create(record: R): Promise<void>;
  /**
   * The usual start in one write: the record and these locks, all written only if none of them
   * exists yet. False when one does (or a concurrent write met them): nothing was written.
   */
  createLocked(record: R, locks: readonly JobLock[]): Promise<boolean>;
  get(id: string): Promise<R | undefined>;
  markQueued(id: string, at: string): Promise<void>;
  /** Takes on queuing a pending, unqueued job's first message (record-updates.ts); false if another request holds that. */
  claimQueueing(id: string, at: string, staleBefore: string): Promise<boolean>;
  /** Marks an active job failed if `guard` holds; returns false when it did not. */
  fail(id: string, reason: string, at: Date, guard: FailGuard): Promise<boolean>;
  /**
   * Active jobs of the kind whose `updatedAt` is before `before`, oldest first, at most `limit`
   * (from the sparse index: eventually consistent, so each write after it is guarded).
   */
  listQuiet(before: string, limit: number): Promise<R[]>;
  /** Records a re-queue of a stalled job before its message is sent (record-updates.ts); false if it changed. */
  markResumed(seen: SeenRecord, at: Date, options?: { resetCount?: boolean }): Promise<boolean>;

  getLock(organizationId: string, subject: string): Promise<JobLock | undefined>;
  /** Takes the lock if it is free, or if it is still held by `takeOverFrom` (a stale holder). */
  putLock(lock: JobLock, takeOverFrom?: string): Promise<boolean>;
  /** Releases the lock if job `id` holds it. */
  releaseLock(organizationId: string, subject: string, id: string): Promise<void>;
  /** Frees every subject of a job that is over: each lock only if it still names the job. */
  releaseLocks(record: R): Promise<void>;

  /** Starts or resumes work: returns the record when the lease was free, expired or already ours. */
  acquireLease(id: string, owner: string, until: number, now: Date): Promise<R | undefined>;
  /** Returns false when the lease is no longer ours. */
  saveProgress(id: string, owner: string, progress: PageProgress): Promise<boolean>;
  releaseLease(id: string, owner: string): Promise<void>;
  /** Returns false when the lease is no longer ours. */
  complete(id: string, owner: string, at: string): Promise<boolean>;

  /**
   * An operator's clean-up, not the service's (a Scan of the table): removes the page fields
   * that records of the kind which ended before ending dropped them still hold (a migration's
   * skipped checkpoint: user ids). Answers the ids of the records it changed.
   */
  dropEndedPageFields(): Promise<string[]>;
}

type Item = Record<string, unknown>;

/** The engine's reads and conditional writes; reading alone needs only DynamoJobRecords. */
export class DynamoJobRepository<R extends JobRecord & Q, Q extends { organizationId: string }>
  extends DynamoJobRecords<R, Q>
  implements JobRepository<R>
{
  /** An UpdateItem of the record `id`: what differs between the writes, and nothing else. */
  private updateRecord(id: string, update: RecordUpdate) {
    return this.client.send(new UpdateCommand({ TableName: this.tableName, Key: recordKey(this.kind, id), ...update }));
  }

  /** A new record's item, written only where none is. */
  private newRecordPut(record: R) {
    return {
      TableName: this.tableName,
      // In the index of active jobs until it completes or fails.
      Item: {
        ...recordKey(this.kind, jobIdOf(this.kind, record)),
        ...record,
        [ACTIVE_PK_ATTRIBUTE]: this.kind.activePartition,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
  }

  /** A lock's item, written where none is, or where `takeOverFrom` (a stale holder) still holds it. */
  private lockPut({ organizationId, subject, role, jobId, createdAt }: JobLock, takeOverFrom?: string) {
    return {
      TableName: this.tableName,
      Item: {
        ...this.kind.lockKey(organizationId, subject),
        organizationId,
        [this.kind.subjectAttribute]: subject,
        [this.kind.idAttribute]: jobId,
        ...(role === undefined ? {} : { role }),
        createdAt,
      },
      ...(takeOverFrom === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: `${this.kind.idAttribute} = :holder`,
            ExpressionAttributeValues: { ':holder': takeOverFrom },
          }),
    };
  }

  /**
   * One TransactWriteItems (a transactional write costs twice a plain one's capacity: a start
   * writes two or three small items). The SDK gives it an idempotency token, so its own retry
   * of a transaction answered late succeeds rather than meeting its first attempt's items.
   */
  createLocked(record: R, locks: readonly JobLock[]): Promise<boolean> {
    return conditionalTransaction(() =>
      this.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: this.newRecordPut(record) }, ...locks.map((lock) => ({ Put: this.lockPut(lock) }))],
        }),
      ),
    );
  }

  async create(record: R): Promise<void> {
    const id = jobIdOf(this.kind, record);
    const created = await conditionalOrOwn(
      () => this.client.send(new PutCommand(this.newRecordPut(record))),
      // The id is new, so a record already there can only be this one.
      async () => {
        const existing = await this.get(id);
        return (
          existing !== undefined &&
          existing.createdAt === record.createdAt &&
          JSON.stringify(this.kind.lockSubjects(existing)) === JSON.stringify(this.kind.lockSubjects(record))
        );
      },
    );
    if (!created) throw new Error(`${this.kind.name} ${id} already exists`);
  }

  claimQueueing(id: string, at: string, staleBefore: string): Promise<boolean> {
    return conditional(() => this.updateRecord(id, claimQueueingUpdate(at, staleBefore)));
  }

  async markQueued(id: string, at: string): Promise<void> {
    await conditional(() => this.updateRecord(id, markQueuedUpdate(at)));
  }

  fail(id: string, reason: string, at: Date, guard: FailGuard): Promise<boolean> {
    return conditional(() => this.updateRecord(id, failUpdate(this.kind, reason, at, guard)));
  }

  async listQuiet(before: string, limit: number): Promise<R[]> {
    const records: R[] = [];
    let start: Item | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: ACTIVE_INDEX,
          KeyConditionExpression: '#active = :active AND updatedAt < :before',
          ExpressionAttributeNames: { '#active': ACTIVE_PK_ATTRIBUTE },
          ExpressionAttributeValues: { ':active': this.kind.activePartition, ':before': before },
          Limit: limit - records.length,
          ExclusiveStartKey: start,
        }),
      );
      records.push(...(page.Items ?? []).map((item) => this.toRecord(item)));
      start = page.LastEvaluatedKey;
    } while (start && records.length < limit);
    return records;
  }

  markResumed(seen: SeenRecord, at: Date, { resetCount = false }: { resetCount?: boolean } = {}): Promise<boolean> {
    return conditional(() => this.updateRecord(seen.id, markResumedUpdate(seen, at, resetCount)));
  }

  async getLock(organizationId: string, subject: string): Promise<JobLock | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.kind.lockKey(organizationId, subject),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const { subjectAttribute, idAttribute } = this.kind;
    return {
      organizationId: Item.organizationId,
      subject: Item[subjectAttribute],
      ...(Item.role === undefined ? {} : { role: Item.role }),
      jobId: Item[idAttribute],
      createdAt: Item.createdAt,
    };
  }

  putLock(lock: JobLock, takeOverFrom?: string): Promise<boolean> {
    return conditional(() => this.client.send(new PutCommand(this.lockPut(lock, takeOverFrom))));
  }

  async releaseLock(organizationId: string, subject: string, id: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: this.kind.lockKey(organizationId, subject),
          ConditionExpression: `${this.kind.idAttribute} = :id`,
          ExpressionAttributeValues: { ':id': id },
        }),
      ),
    );
  }

  async releaseLocks(record: R): Promise<void> {
    const id = jobIdOf(this.kind, record);
    await Promise.all(
      this.kind.lockSubjects(record).map(({ subject }) => this.releaseLock(record.organizationId, subject, id)),
    );
  }

  async acquireLease(id: string, owner: string, until: number, now: Date): Promise<R | undefined> {
    const output = await ifConditionHolds(() => this.updateRecord(id, acquireLeaseUpdate(owner, until, now)));
    return output?.Attributes ? this.toRecord(output.Attributes) : undefined;
  }

  saveProgress(id: string, owner: string, progress: PageProgress): Promise<boolean> {
    return conditionalOrOwn(
      () => this.updateRecord(id, saveProgressUpdate(owner, progress)),
      // The SDK's retry of a page saved but answered late: the page is there, under our lease.
      async () => {
        const current = await this.get(id);
        return current?.leaseOwner === owner && current.runs[progress.run] === progress.page;
      },
    );
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    await conditional(() => this.updateRecord(id, releaseLeaseUpdate(owner)));
  }

  async dropEndedPageFields(): Promise<string[]> {
    const update = dropPageFieldsUpdate(this.kind);
    if (!update) return [];
    const fields = Object.keys(this.kind.pageFields ?? {});
    const names = Object.fromEntries(fields.map((name, i) => [`#field${i}`, name]));
    const dropped: string[] = [];
    let start: Item | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          ProjectionExpression: 'pk',
          FilterExpression: `begins_with(pk, :prefix) AND #status IN (:completed, :failed) AND (${Object.keys(names)
            .map((name) => `attribute_exists(${name})`)
            .join(' OR ')})`,
          ExpressionAttributeNames: { '#status': 'status', ...names },
          ExpressionAttributeValues: { ':prefix': this.kind.keyPrefix, ':completed': 'completed', ':failed': 'failed' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const id = String(item.pk).slice(this.kind.keyPrefix.length);
        if (await conditional(() => this.updateRecord(id, update))) dropped.push(id);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return dropped;
  }

  complete(id: string, owner: string, at: string): Promise<boolean> {
    return conditionalOrOwn(
      () => this.updateRecord(id, completeUpdate(this.kind, owner, at)),
      // The SDK's retry of a completion answered late (the lease went with it).
      async () => {
        const current = await this.get(id);
        return current?.status === 'completed' && current.completedAt === at;
      },
    );
  }
}
