import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach } from '@jest/globals';
import type { Delivery } from '#shared/jobs/delivery-policy.js';
import type { JobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { type StartDeps, startJob } from '#shared/jobs/start.js';
import { DynamoMigrationEntries } from '#shared/migration/copies.js';
import { lockKey } from '#shared/migration/keys.js';
import { migrationJob } from '#shared/migration/kind.js';
import type { MigrationRecord } from '#shared/migration/model.js';
import type { MigrateRequest } from '#shared/migration/routes/migrate-document.js';
import { runMigration, type WorkerDeps } from '#shared/migration/worker.js';
import { logger } from '#shared/platform/logger.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { itemToEntry } from '#shared/preferences/entry-item.js';
import { documentPartition, entryTableKey } from '#shared/preferences/keys.js';
import type { ChannelConfig, StoredEntry } from '#shared/preferences/model.js';
import { type TestDynamo, type TestDynamoOptions, uniqueId, useTestDynamo } from '../support/dynamo.js';

/** The API key the tests' jobs are started with. */
export const TEST_API_KEY = 'ak_test';

export type MigrationRepository = DynamoJobRepository<MigrationRecord, MigrateRequest>;

/** Starts a migration as its route does, with the test API key. */
export const startMigration = (deps: StartDeps<MigrationRecord>, request: MigrateRequest) =>
  startJob(migrationJob, deps, request, TEST_API_KEY);

/** The queue as a list: what was sent, in order. */
export class MemoryQueue implements JobQueue {
  readonly sent: string[] = [];
  readonly delays: (number | undefined)[] = [];
  /** When each was sent (Date.now()). */
  readonly sentAt: number[] = [];
  async send(migrationId: string, delaySeconds?: number): Promise<void> {
    this.sent.push(migrationId);
    this.delays.push(delaySeconds);
    this.sentAt.push(Date.now());
  }
}

export class CrashError extends Error {
  override readonly name = 'CrashError';
}

/** One process: once it crashes, every later call of any wrapped object fails too. */
export interface CrashPlan {
  method: string;
  /** The call (1-based) that crashes. */
  call: number;
  /** Crash after the call took effect (its answer is lost) instead of before. */
  after?: boolean;
}

export class Process {
  crashed = false;
  private count = 0;
  constructor(private readonly plan?: CrashPlan) {}

  wrap<T extends object>(target: T): T {
    return new Proxy(target, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (this.crashed) throw new CrashError('process is gone');
          const planned = this.plan?.method === property && ++this.count === this.plan.call;
          if (planned && !this.plan?.after) {
            this.crashed = true;
            throw new CrashError(`crash before ${String(property)} #${this.count}`);
          }
          const result = await value.apply(object, args);
          if (planned) {
            this.crashed = true;
            throw new CrashError(`crash after ${String(property)} #${this.count}`);
          }
          return result;
        };
      },
    });
  }
}

export const T0 = Date.parse('2026-03-01T00:00:00.000Z');
export const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

export interface Harness {
  /** The config table as the migration consumer has it (the store's operations and the checked copy). */
  store: DynamoMigrationEntries;
  /** The same table as config/set and config/get have it. */
  preferences: DynamoPreferenceStore;
  /** The same table as the erasure consumer has it. */
  erasures: DynamoErasureEntryStore;
  repository: MigrationRepository;
  queue: MemoryQueue;
  deps(overrides?: Partial<WorkerDeps>): WorkerDeps;
  start(organizationId: string, documentId: string, newDocumentId: string): Promise<string>;
  deliver(
    migrationId: string,
    overrides?: Partial<WorkerDeps>,
    delivery?: Partial<Delivery>,
  ): ReturnType<typeof runMigration>;
  /** Writes entries directly (25 per BatchWriteItem), as the set route would have stored them. */
  seed(entries: SeedEntry[]): Promise<void>;
  documentEntries(organizationId: string, documentId: string): Promise<StoredEntry[]>;
  lockExists(organizationId: string, documentId: string): Promise<boolean>;
}

export interface SeedEntry {
  organizationId: string;
  userId: string;
  documentId: string | null;
  config: ChannelConfig;
  updatedAt: string;
  version?: number;
}

export const harness = (dynamo: TestDynamo, doc: DynamoDBDocumentClient = dynamo.doc): Harness => {
  const store = new DynamoMigrationEntries(doc, dynamo.tables.config);
  const repository = new DynamoJobRepository(migrationJob, doc, dynamo.tables.migrations);
  const queue = new MemoryQueue();
  const deps = (overrides: Partial<WorkerDeps> = {}): WorkerDeps => ({
    entries: store,
    repository,
    queue,
    concurrency: 8,
    ...overrides,
  });
  return {
    store,
    preferences: new DynamoPreferenceStore(doc, dynamo.tables.config),
    erasures: new DynamoErasureEntryStore(doc, dynamo.tables.config),
    repository,
    queue,
    deps,
    async start(organizationId, documentId, newDocumentId) {
      const { migrationId } = await startMigration(
        { repository, queue },
        { organizationId, documentId, newDocumentId },
      );
      return migrationId;
    },
    deliver: (migrationId, overrides = {}, delivery = {}) =>
      runMigration(deps(overrides), migrationId, { receiveCount: 1, maxReceiveCount: 5, ...delivery }),
    async seed(entries) {
      for (let i = 0; i < entries.length; i += 25) {
        const items = entries.slice(i, i + 25).map((entry) => ({
          PutRequest: {
            Item: {
              ...entryTableKey(entry),
              organizationId: entry.organizationId,
              userId: entry.userId,
              ...(entry.documentId === null ? {} : { documentId: entry.documentId }),
              scope: entry.documentId === null ? 'organization' : 'document',
              ...entry.config,
              updatedAt: entry.updatedAt,
              updatedBy: 'ak_seed',
              version: entry.version ?? 1,
            },
          },
        }));
        await doc.send(new BatchWriteCommand({ RequestItems: { [dynamo.tables.config]: items } }));
      }
    },
    async documentEntries(organizationId, documentId) {
      const entries: StoredEntry[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: dynamo.tables.config,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': documentPartition(organizationId, documentId) },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) entries.push(itemToEntry(item));
        start = page.LastEvaluatedKey;
      } while (start);
      return entries;
    },
    async lockExists(organizationId, documentId) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: dynamo.tables.migrations, Key: lockKey(organizationId, documentId) }),
      );
      return Item !== undefined;
    },
  };
};

// Migration logs would drown the test output.
logger.setLogLevel('SILENT');

/** The organization of the running test: useMigrationHarness gives each test a fresh one. */
export let ORG = 'org#1';
/** The harness of the running test, on the file's tables (useMigrationHarness). */
export let h: Harness;

/**
 * The set-up of a migration or job test file: DynamoDB Local for the file (the run's tables unless
 * told), and for each test a fresh organization (ORG) and a harness (h) with an empty queue.
 */
export const useMigrationHarness = (options: TestDynamoOptions & { freshTablesPerTest?: boolean } = {}): TestDynamo => {
  const dynamo = useTestDynamo(options);
  beforeEach(() => {
    ORG = uniqueId('org#1');
    h = harness(dynamo);
  });
  return dynamo;
};

export const SRC = 'doc/a';
export const DST = 'doc/b';
export const later = () => new Date(Date.now() + 10 * 60_000); // past any lease a crashed run left

export const configOf = (i: number): ChannelConfig => ({
  inbox: (['ALL', 'MINE', 'NONE'] as const)[i % 3],
  email: (['NONE', 'ALL', 'MINE'] as const)[i % 3],
});
export const user = (i: number) => `user-${String(i).padStart(5, '0')}`;
export const sourceEntries = (count: number, updatedAt = at(10)): SeedEntry[] =>
  Array.from({ length: count }, (_, i) => ({
    organizationId: ORG,
    userId: user(i),
    documentId: SRC,
    config: configOf(i),
    updatedAt,
  }));

/** The running test's migration as its counts. */
export const summary = async (migrationId: string) => {
  const record = await h.repository.get(migrationId);
  return { status: record?.status, moved: record?.moved, skipped: record?.skipped };
};

/** A document's content in the running test's organization, by user: config and updatedAt. */
export const contents = async (documentId: string) =>
  Object.fromEntries(
    (await h.documentEntries(ORG, documentId)).map((e) => [e.userId, { config: e.config, updatedAt: e.updatedAt }]),
  );
