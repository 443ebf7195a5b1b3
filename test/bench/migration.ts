import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import pMap from 'p-map';
import { ensureTables, startEmbeddedDynamo } from '#local/dynamo.js';
import { lambdaContext } from '#local/lambda-context.js';
import { DEFAULT_CONSUMER_TIMEOUT_MS } from '#local/service-queues.js';
import { type FunctionSpec, MIGRATION_CONSUMER_FUNCTION, memoryOf } from '#service/functions.js';
import { queueConsumer } from '#shared/edge/queue-consumer.js';
import { type JobQueue, jobMessage } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { startJob } from '#shared/jobs/start.js';
import { DynamoMigrationEntries } from '#shared/migration/copies.js';
import { migrationJob } from '#shared/migration/kind.js';
import { runMigration } from '#shared/migration/worker.js';
import { createDocumentClient, MAX_ATTEMPTS } from '#shared/platform/aws-clients.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { runChild } from './child.js';
import { CallCounter, type CallSummary } from './counting.js';
import { cpuSecondsSince, FULL_VCPU_MB, projectedSeconds } from './lambda-cpu.js';
import { progress } from './progress.js';
import { goal, type Section, section } from './report.js';
import { fmtBytes, fmtMs, fmtNum, fmtRatio, sampleRss } from './stats.js';

const ORG = 'bench-org';
const CONSUMER_MEMORY_MB = memoryOf(MIGRATION_CONSUMER_FUNCTION as FunctionSpec);
/** DynamoDB writes at most 1,000 WCU/s to one partition; a moved entry is 2 writes (copy, delete). */
const PARTITION_WRITES_PER_SECOND = 1000;
const FLOOR_MS_PER_ENTRY = (1000 * 2) / PARTITION_WRITES_PER_SECOND;
const SOURCE = 'doc-source';
const TARGET = 'doc-target';
const MAX_RECEIVE_COUNT = 5;

/** The queue as a list, delivered by the loop below as SQS would (one message per invocation). */
class ListQueue implements JobQueue {
  readonly messages: { body: string; receiveCount: number }[] = [];
  async send(migrationId: string): Promise<void> {
    this.messages.push({ body: JSON.stringify({ migrationId }), receiveCount: 0 });
  }
}

const sqsEvent = (body: string, receiveCount: number): SQSEvent => ({
  Records: [
    {
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      body,
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: String(Date.now()),
        SenderId: 'bench',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:migrations',
      awsRegion: 'local',
    },
  ],
});

export interface Run {
  entries: number;
  seedMs: number;
  ms: number;
  moved: number;
  deliveries: number;
  summary: CallSummary;
  peakRss: number;
  /** CPU time of this process (the consumer's; the store runs in another) over the deliveries. */
  cpuSeconds: number;
}

/**
 * One migration of `count` document-level entries: fresh tables in the store at `endpoint`
 * (another process), the source document seeded with BatchWriteItem (not counted), the
 * migration started with the domain function, then the real consumer handler
 * (shared/migration/consumer.ts, as functions/migration-consumer.ts builds it) invoked with SQS
 * events, with the deployed 60 s timeout in its context, until the record completes;
 * continuation messages are delivered in turn.
 */
export const migrate = async (count: number, endpoint: string): Promise<Run> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: MAX_ATTEMPTS,
  });
  const suffix = randomUUID().slice(0, 8);
  await ensureTables(client, (table) => `${table.localName}-${suffix}`);
  const dynamo = {
    doc: DynamoDBDocumentClient.from(client),
    tables: { config: `config-${suffix}`, migrations: `migrations-${suffix}` },
  };
  try {
    const seedStarted = performance.now();
    const batches = Array.from({ length: Math.ceil(count / 25) }, (_, b) => b);
    await pMap(
      batches,
      async (b) => {
        const items = Array.from({ length: Math.min(25, count - b * 25) }, (_, i) => {
          const userId = `user-${String(b * 25 + i).padStart(6, '0')}`;
          return {
            PutRequest: {
              Item: {
                ...entryTableKey({ organizationId: ORG, userId, documentId: SOURCE }),
                organizationId: ORG,
                userId,
                documentId: SOURCE,
                scope: 'document',
                email: 'MINE',
                slack: 'NONE',
                updatedAt: '2026-01-01T00:00:00.000Z',
                updatedBy: 'ak_bench',
                version: 1,
              },
            },
          };
        });
        let request: Record<string, unknown> | undefined = { [dynamo.tables.config]: items };
        while (request && Object.keys(request).length > 0) {
          const output = await dynamo.doc.send(new BatchWriteCommand({ RequestItems: request as never }));
          request = output.UnprocessedItems as Record<string, unknown> | undefined;
        }
      },
      { concurrency: 4 },
    );
    const seedMs = performance.now() - seedStarted;

    const counter = new CallCounter();
    const doc = createDocumentClient(client);
    counter.attachDynamo(doc);
    const queue = new ListQueue();
    const repository = new DynamoJobRepository(migrationJob, doc, dynamo.tables.migrations);
    const { migrationId } = await startJob(
      migrationJob,
      { repository: new DynamoJobRepository(migrationJob, dynamo.doc, dynamo.tables.migrations), queue },
      { organizationId: ORG, documentId: SOURCE, newDocumentId: TARGET },
      'ak_bench',
    );
    const deps = { entries: new DynamoMigrationEntries(doc, dynamo.tables.config), repository, queue };
    const handler = queueConsumer({
      message: jobMessage(migrationJob),
      name: 'migration message',
      maxReceiveCount: MAX_RECEIVE_COUNT,
      handle: (id, delivery) => runMigration(deps, id, delivery),
    });

    const rss = sampleRss(100);
    const shown = progress(
      `migration of ${count.toLocaleString('en-US')} entries`,
      () => `${Math.round(counter.summary().writes / 2).toLocaleString('en-US')} moved`,
    );
    const cpu = process.cpuUsage();
    const started = performance.now();
    let deliveries = 0;
    for (let message = queue.messages.shift(); message; message = queue.messages.shift()) {
      message.receiveCount += 1;
      deliveries += 1;
      const context = lambdaContext({
        functionName: 'bench-MigrationConsumer',
        timeoutMs: DEFAULT_CONSUMER_TIMEOUT_MS,
      });
      const response = (await handler(sqsEvent(message.body, message.receiveCount), context)) as {
        batchItemFailures: unknown[];
      };
      // A failed record goes back to the queue, as SQS would redeliver it.
      if (response.batchItemFailures.length > 0 && message.receiveCount < MAX_RECEIVE_COUNT)
        queue.messages.push(message);
    }
    const ms = performance.now() - started;
    const cpuSeconds = cpuSecondsSince(cpu);
    shown.stop();
    const peakRss = rss.stop();
    const record = await repository.get(migrationId);
    if (record?.status !== 'completed')
      throw new Error(`migration of ${count} ended ${record?.status}: ${record?.error}`);
    return {
      entries: count,
      seedMs,
      ms,
      moved: record.moved,
      deliveries,
      summary: counter.summary(),
      peakRss,
      cpuSeconds,
    };
  } finally {
    client.destroy();
  }
};

export interface MigrationOptions {
  sizes: number[];
}

const CHILD = fileURLToPath(new URL('./migration-child.ts', import.meta.url));

/** The consumer's CPU time per moved entry, projected to its deployed memory, in ms. */
const projectedMsPerEntry = (r: Run): number =>
  projectedSeconds(r.cpuSeconds / Math.max(1, r.moved), CONSUMER_MEMORY_MB) * 1000;

export const migrationBench = async ({ sizes }: MigrationOptions): Promise<Section[]> => {
  const runs: Run[] = [];
  // One store for every size (fresh tables each), outside the processes that measure. Each size
  // runs in a fresh Node process: the heap and the garbage left by earlier sections or sizes
  // must not slow a later size down, which would read as growth the migration does not have.
  const store = await startEmbeddedDynamo();
  try {
    for (const size of sizes) {
      runs.push(await runChild<Run>(CHILD, [String(size), store.endpoint]));
      const r = runs.at(-1) as Run;
      console.log(`[bench] migration of ${fmtNum(size)} entries: ${fmtMs(r.ms)} (seeding ${fmtMs(r.seedMs)})`);
    }
  } finally {
    await store.close();
  }
  const s = section('migration', '5. Migration');
  s.tables.push({
    title:
      'One migration per size, each in a fresh Node process: the consumer handler, the store (local/dynamo.ts) outside that process',
    columns: [
      'entries',
      'moved',
      'time',
      'entries/s',
      'CPU',
      'CPU/entry',
      `projected/entry at ${CONSUMER_MEMORY_MB} MB`,
      'projected entries/s',
      'deliveries',
      'writes/entry',
      'read calls/entry',
      'capacity/entry',
      'retries',
      'operations',
      'peak RSS',
      'seeding',
    ],
    rows: runs.map((r) => [
      fmtNum(r.entries),
      fmtNum(r.moved),
      fmtMs(r.ms),
      fmtNum(r.moved / (r.ms / 1000), 1),
      `${r.cpuSeconds.toFixed(2)} s`,
      `${((r.cpuSeconds / r.moved) * 1e6).toFixed(0)} us`,
      `${projectedMsPerEntry(r).toFixed(2)} ms`,
      fmtNum(1000 / projectedMsPerEntry(r)),
      r.deliveries,
      (r.summary.writes / r.entries).toFixed(3),
      (r.summary.reads / r.entries).toFixed(3),
      (r.summary.capacity / r.entries).toFixed(2),
      fmtNum(r.summary.retries),
      Object.entries(r.summary.byOperation)
        .map(([op, n]) => `${op} ${n}`)
        .join(', '),
      fmtBytes(r.peakRss),
      fmtMs(r.seedMs),
    ]),
  });
  for (const r of runs) {
    const writes = r.summary.writes / r.entries;
    const reads = r.summary.reads / r.entries;
    s.goals.push(
      goal(`${fmtNum(r.entries)} entries: all moved`, fmtNum(r.moved), fmtNum(r.entries), r.moved === r.entries),
    );
    s.goals.push(goal(`${fmtNum(r.entries)} entries: writes per entry`, writes.toFixed(3), '<= 2.1', writes <= 2.1));
    s.goals.push(
      goal(`${fmtNum(r.entries)} entries: read calls per entry`, reads.toFixed(3), '<= 0.05', reads <= 0.05),
    );
    const perEntry = projectedMsPerEntry(r);
    s.goals.push(
      goal(
        `${fmtNum(r.entries)} entries: consumer time per moved entry at ${CONSUMER_MEMORY_MB} MB vs DynamoDB's per-partition floor`,
        `${perEntry.toFixed(2)} ms (${fmtNum(1000 / perEntry)} entries/s)`,
        `<= ${FLOOR_MS_PER_ENTRY} ms (${fmtNum(1000 / FLOOR_MS_PER_ENTRY)} entries/s)`,
        perEntry <= FLOOR_MS_PER_ENTRY,
      ),
    );
  }
  const growth = runs.slice(1).map((r, i) => {
    const prev = runs[i] as Run;
    const sizeRatio = r.entries / prev.entries;
    const timeRatio = r.ms / prev.ms;
    const cpuRatio = r.cpuSeconds / prev.cpuSeconds;
    return { from: prev.entries, to: r.entries, sizeRatio, timeRatio, cpuRatio };
  });
  if (growth.length) {
    s.tables.push({
      title: 'Growth (linear means the ratio equals the size ratio)',
      columns: [
        'from',
        'to',
        'size ratio',
        'CPU ratio',
        'CPU ratio / size ratio',
        'time ratio',
        'time ratio / size ratio',
      ],
      rows: growth.map((g) => [
        fmtNum(g.from),
        fmtNum(g.to),
        fmtRatio(g.sizeRatio),
        fmtRatio(g.cpuRatio),
        (g.cpuRatio / g.sizeRatio).toFixed(2),
        fmtRatio(g.timeRatio),
        (g.timeRatio / g.sizeRatio).toFixed(2),
      ]),
    });
    for (const g of growth) {
      // The goal is 50,000 <= 5.5x the time of 10,000: 1.1 times linear. Scored on the
      // consumer's CPU time: wall time here is the local store's speed on a shared machine.
      const limit = 1.1 * g.sizeRatio;
      s.goals.push(
        goal(
          `consumer CPU time ${fmtNum(g.to)} vs ${fmtNum(g.from)} entries`,
          `${fmtRatio(g.cpuRatio)} (wall time ${fmtRatio(g.timeRatio)})`,
          `<= ${fmtRatio(limit)} (1.1 x linear)`,
          g.cpuRatio <= limit,
        ),
      );
    }
  }
  s.notes.push(
    "Calls are counted on the consumer's DynamoDB client only (seeding and the start request are not included). Per entry the lower bound is 2 writes (the copy, one transaction of the target's put and the source's stamp, and the conditional delete of the source); each page of 100 adds one Query, one BatchGetItem and one progress update.",
    `The consumer runs with the deployed 60 s function timeout in its context, so long migrations continue in new messages ("deliveries"), as deployed.`,
    `Projected: the consumer process's CPU time per moved entry x ${FULL_VCPU_MB}/${CONSUMER_MEMORY_MB} (Lambda gives 1 vCPU at ${FULL_VCPU_MB} MB; the consumer's memory from service/functions.ts). The floor: DynamoDB takes at most ${fmtNum(PARTITION_WRITES_PER_SECOND)} WCU/s on one partition, and every entry of a document shares one; an entry costs 2 writes, so no consumer can move more than ${fmtNum(1000 / FLOOR_MS_PER_ENTRY)} entries/s of one document. Below ${FLOOR_MS_PER_ENTRY} ms per entry the function is not what limits a migration.`,
  );
  s.data = { runs, growth };
  return [s];
};
