import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import pMap from 'p-map';
import { lambdaContext } from '#local/lambda-context.js';
import { DEFAULT_CONSUMER_TIMEOUT_MS } from '#local/runtime.js';
import { createDocumentClient, MAX_ATTEMPTS } from '#shared/lambda/aws-clients.js';
import { createConsumerHandler } from '#shared/migration/consumer.js';
import type { MigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { startMigration } from '#shared/migration/start.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { startTestDynamo } from '../support/dynamo.js';
import { CallCounter, type CallSummary } from './counting.js';
import { goal, type Section, section } from './report.js';
import { fmtBytes, fmtMs, fmtNum, fmtRatio, sampleRss } from './stats.js';

const ORG = 'bench-org';
const SOURCE = 'doc-source';
const TARGET = 'doc-target';
const MAX_RECEIVE_COUNT = 5;

/** The queue as a list, delivered by the loop below as SQS would (one message per invocation). */
class ListQueue implements MigrationQueue {
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
}

/**
 * One migration of `count` document-level entries: a fresh dynalite, the source document
 * seeded with BatchWriteItem (not counted), the migration started with the domain function,
 * then the real consumer handler (shared/migration/consumer.ts, as functions/migration-consumer.ts
 * builds it) invoked with SQS events, with the deployed 60 s timeout in its context, until the
 * record completes; continuation messages are delivered in turn.
 */
export const migrate = async (count: number): Promise<Run> => {
  const dynamo = await startTestDynamo();
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: MAX_ATTEMPTS,
  });
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
    const repository = new DynamoMigrationRepository(doc, dynamo.tables.migrations);
    const { migrationId } = await startMigration(
      { repository: new DynamoMigrationRepository(dynamo.doc, dynamo.tables.migrations), queue },
      { organizationId: ORG, documentId: SOURCE, newDocumentId: TARGET },
    );
    const handler = createConsumerHandler({
      deps: { entries: new DynamoPreferenceStore(doc, dynamo.tables.config), repository, queue },
      maxReceiveCount: MAX_RECEIVE_COUNT,
    });

    const rss = sampleRss(100);
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
    const peakRss = rss.stop();
    const record = await repository.get(migrationId);
    if (record?.status !== 'completed')
      throw new Error(`migration of ${count} ended ${record?.status}: ${record?.error}`);
    return { entries: count, seedMs, ms, moved: record.moved, deliveries, summary: counter.summary(), peakRss };
  } finally {
    client.destroy();
    await dynamo.close();
  }
};

export interface MigrationOptions {
  sizes: number[];
}

const CHILD = fileURLToPath(new URL('./migration-child.ts', import.meta.url));

/**
 * Each size runs in a fresh Node process (same loader flags as this one): the heap and the
 * garbage left by earlier sections or sizes must not slow a later size down, which would read
 * as non-linear growth that the migration itself does not have.
 */
const migrateInChild = (size: number): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = fork(CHILD, [String(size)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let run: Run | undefined;
    child.once('message', (message: Run) => {
      run = message;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      run ? resolve(run) : reject(new Error(`the migration of ${size} entries exited (${code}) without a result`)),
    );
  });

export const migrationBench = async ({ sizes }: MigrationOptions): Promise<Section[]> => {
  const runs: Run[] = [];
  for (const size of sizes) {
    runs.push(await migrateInChild(size));
    const r = runs.at(-1) as Run;
    console.log(`[bench] migration of ${fmtNum(size)} entries: ${fmtMs(r.ms)} (seeding ${fmtMs(r.seedMs)})`);
  }
  const s = section('migration', '5. Migration');
  s.tables.push({
    title:
      'One migration per size, each in a fresh Node process: the consumer handler against dynalite in that process',
    columns: [
      'entries',
      'moved',
      'time',
      'entries/s',
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
  }
  const growth = runs.slice(1).map((r, i) => {
    const prev = runs[i] as Run;
    const sizeRatio = r.entries / prev.entries;
    const timeRatio = r.ms / prev.ms;
    return { from: prev.entries, to: r.entries, sizeRatio, timeRatio };
  });
  if (growth.length) {
    s.tables.push({
      title: 'Time growth (linear means the time ratio equals the size ratio)',
      columns: ['from', 'to', 'size ratio', 'time ratio', 'time ratio / size ratio'],
      rows: growth.map((g) => [
        fmtNum(g.from),
        fmtNum(g.to),
        fmtRatio(g.sizeRatio),
        fmtRatio(g.timeRatio),
        (g.timeRatio / g.sizeRatio).toFixed(2),
      ]),
    });
    for (const g of growth) {
      // The goal is 50,000 <= 5.5x the time of 10,000: 1.1 times linear.
      const limit = 1.1 * g.sizeRatio;
      s.goals.push(
        goal(
          `time ${fmtNum(g.to)} vs ${fmtNum(g.from)}`,
          fmtRatio(g.timeRatio),
          `<= ${fmtRatio(limit)} (1.1 x linear)`,
          g.timeRatio <= limit,
        ),
      );
    }
  }
  s.notes.push(
    "Calls are counted on the consumer's DynamoDB client only (seeding and the start request are not included). Per entry the lower bound is 2 writes (the conditional put of the target and the conditional delete of the source); each page of 100 adds one Query, one BatchGetItem and one progress update.",
    `The consumer runs with the deployed 60 s function timeout in its context, so long migrations continue in new messages ("deliveries"), as deployed.`,
  );
  s.data = { runs, growth };
  return [s];
};
