import type { Context, SQSEvent } from 'aws-lambda';
import { startLocalRuntime } from '#local/runtime.js';
import type { QueueConsumer } from '#local/sqs.js';
import { operationById } from '#shared/api/operations.js';
import { timeoutSecondsOf } from '#shared/deployment/functions.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { CallCounter, type CallSummary } from './counting.js';
import { goal, type Section, section } from './report.js';
import { fmtBytes, fmtMs, fmtNum, sampleRss } from './stats.js';

const ORG = 'bench-org';
const LARGEST_TIMEOUT_MS = 600_000;
/** The deployed config/set function's timeout. */
const DEPLOYED_TIMEOUT_MS = timeoutSecondsOf(operationById('setConfig').function) * 1000;
const SET = '/v2/notifications/config/set';
const GET = '/v2/notifications/config/get';
const MIGRATE = '/v2/organizations/documents/migrate';

export const users = (count: number, prefix = 'user') =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
export const documents = (count: number, prefix = 'doc') => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

interface Case {
  name: string;
  /** Entries the request writes (the lower bound of write calls) or keys it reads. */
  entries: number;
  summary: CallSummary;
  ms: number;
  status: number;
}

/**
 * Sections 2 and 4: the storage calls each request makes, counted on the SDK clients the
 * handlers themselves use (shared/lambda/aws-clients.ts), through the local server in this process.
 * The credential cache has the deployed default (60 s), so the first request reads the
 * credential and the next ones must not.
 */
export const storageBench = async (): Promise<Section[]> => {
  // The queue consumer waits until the migrate request has answered, so that the request's
  // calls and the consumer's are counted apart (the local queue delivers at once).
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  const consumer: QueueConsumer = async (event: SQSEvent, context: Context) => {
    await gate;
    const { handler } = await import('#functions/migration-consumer.js');
    return handler(event, context);
  };
  const service = await startLocalRuntime({
    consumer,
    host: '127.0.0.1',
    port: 0,
    inMemory: true,
    dataDir: '/nonexistent-in-memory',
    // The deployed functions time out at 10 s; here the largest request must be able to
    // finish on a slow machine, and its time is reported against those 10 s.
    handlerTimeoutMs: LARGEST_TIMEOUT_MS,
    env: { CREDENTIAL_CACHE_TTL_SECONDS: '60', POWERTOOLS_LOG_LEVEL: 'SILENT' },
  });
  const call = async (path: string, data: unknown) => {
    const response = await fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-api-key': service.apiKey,
        'x-service-auth-token': service.token,
      },
      body: JSON.stringify({ data }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as { result?: { data: unknown } } };
  };
  try {
    // Imported after the runtime has loaded the handlers: the same module instances, clients included.
    const { documentClient, sqsClient } = await import('#shared/lambda/aws-clients.js');
    const counter = new CallCounter(service.tables.credentials).attachDynamo(documentClient).attachSqs(sqsClient);
    const cases: Case[] = [];
    const measure = async (name: string, entries: number, path: string, data: unknown) => {
      const from = counter.mark();
      const started = performance.now();
      const response = await call(path, data);
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`${name}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
      const entry: Case = { name, entries, summary: counter.summary(from), ms, status: response.status };
      cases.push(entry);
      return { entry, response };
    };
    const setData = (userIds: string[], documentIds?: string[]) => ({
      organizationId: ORG,
      userIds,
      ...(documentIds ? { documentIds } : {}),
      config: { email: 'MINE', slack: 'NONE' },
    });

    await measure('set 1x1, first request (credential not cached)', 1, SET, setData(['solo'], ['doc-solo']));
    const warm = await measure('set 1x1, warm', 1, SET, setData(['solo'], ['doc-solo']));
    await measure('set 1 user, organization level', 1, SET, setData(['solo']));
    await measure('set 100 users x 1 doc', 100, SET, setData(users(100), ['doc-0']));

    // Section 4: the limit-sized request.
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage.rss();
    const rss = sampleRss();
    const largest = await measure('set 1000 users x 30 docs', 30_000, SET, setData(users(1000), documents(30)));
    const peakRss = rss.stop();
    const heapAfter = process.memoryUsage().heapUsed;
    const responseBytes = Buffer.byteLength(largest.response.text);

    // Each function has its own credential cache: one request warms it before the measured ones.
    await call(GET, { organizationId: ORG, userId: 'solo' });
    await measure('get 1 doc (+ org entry)', 2, GET, {
      organizationId: ORG,
      userId: 'user-00001',
      documentIds: ['doc-0'],
    });
    await measure('get 30 docs (+ org entry)', 31, GET, {
      organizationId: ORG,
      userId: 'user-00001',
      documentIds: documents(30),
    });
    await measure('get organization level', 1, GET, { organizationId: ORG, userId: 'solo' });

    // Migrate doc-1 (1000 entries written by the largest set) to a new document: the request,
    // then the queue consumer's work until the record says completed. A first request that
    // fails validation (same document twice) only warms the function's credential cache.
    await call(MIGRATE, { organizationId: ORG, documentId: 'doc-1', newDocumentId: 'doc-1' });
    const migrate = await measure('migrate (request only)', 0, MIGRATE, {
      organizationId: ORG,
      documentId: 'doc-1',
      newDocumentId: 'doc-1-moved',
    });
    const migrationId = (migrate.response.body.result?.data as { migrationId?: string } | undefined)?.migrationId ?? '';
    const repository = new DynamoMigrationRepository(service.doc, service.tables.migrations);
    const consumerFrom = counter.mark();
    const consumerStarted = performance.now();
    openGate();
    let record = await repository.get(migrationId);
    while (record && record.status !== 'completed' && record.status !== 'failed') {
      if (performance.now() - consumerStarted > 120_000) throw new Error('migration did not finish in 120 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = await repository.get(migrationId);
    }
    if (record?.status !== 'completed') throw new Error(`migration ended ${record?.status}: ${record?.error}`);
    cases.push({
      name: `migration consumer, ${record.moved} entries`,
      entries: record.moved,
      summary: counter.summary(consumerFrom),
      ms: performance.now() - consumerStarted,
      status: 200,
    });

    return [
      callsSection(cases, warm.entry),
      largestSection(largest.entry, { heapBefore, heapAfter, rssBefore, peakRss, responseBytes }),
    ];
  } finally {
    await service.close();
  }
};

const ops = (summary: CallSummary) =>
  Object.entries(summary.byOperation)
    .map(([op, n]) => `${op} ${n}`)
    .join(', ');

const callsSection = (cases: Case[], warm: Case): Section => {
  const s = section('storage', '2. Storage calls per request');
  s.tables.push({
    title: "DynamoDB and SQS calls per request (counted on the handlers' own SDK clients)",
    columns: [
      'request',
      'entries or keys',
      'DynamoDB calls',
      'writes',
      'read calls',
      'keys read',
      'credential reads',
      'capacity units',
      'SQS',
      'retries',
      'operations',
      'time',
    ],
    rows: cases.map((c) => [
      c.name,
      fmtNum(c.entries),
      fmtNum(c.summary.calls),
      fmtNum(c.summary.writes),
      fmtNum(c.summary.reads),
      fmtNum(c.summary.keysRead),
      fmtNum(c.summary.credentialReads),
      fmtNum(c.summary.capacity, 1),
      fmtNum(c.summary.sqs),
      fmtNum(c.summary.retries),
      ops(c.summary),
      fmtMs(c.ms),
    ]),
  });
  for (const c of cases.filter((c) => c.name.startsWith('set'))) {
    const writes = c.summary.writes;
    s.goals.push(
      goal(
        `${c.name}: writes == entries`,
        `${fmtNum(writes)} writes for ${fmtNum(c.entries)} entries`,
        `${fmtNum(c.entries)}`,
        writes === c.entries,
      ),
    );
  }
  s.goals.push(
    goal(
      'warm request: credential reads',
      String(warm.summary.credentialReads),
      '0',
      warm.summary.credentialReads === 0,
    ),
  );
  for (const c of cases.filter((c) => c.name.startsWith('get'))) {
    const needed = Math.ceil(c.entries / 100);
    const reads = c.summary.reads - c.summary.credentialReads;
    s.goals.push(
      goal(
        `${c.name}: reads batched`,
        `${reads} read call(s) for ${c.entries} keys`,
        `${needed} (100 keys per BatchGetItem)`,
        reads <= needed,
      ),
    );
  }
  const consumer = cases.at(-1) as Case;
  if (consumer.entries > 0) {
    const writesPer = consumer.summary.writes / consumer.entries;
    const readsPer = consumer.summary.reads / consumer.entries;
    s.goals.push(goal('migration: writes per entry', writesPer.toFixed(3), '<= 2.1', writesPer <= 2.1));
    s.goals.push(goal('migration: read calls per entry', readsPer.toFixed(3), '<= 0.05', readsPer <= 0.05));
  }
  s.notes.push(
    'Credential cache at the deployed default (60 s). Capacity units are what dynalite reports with ReturnConsumedCapacity=TOTAL (same rules as DynamoDB on-demand: 1 WCU per 1 KB written, 0.5/1 RCU per 4 KB read).',
    'A write is one PutItem/UpdateItem/DeleteItem (or a BatchWriteItem); "entries" is what the request stores, the lower bound of writes for one-item-per-entry storage.',
  );
  s.data = { cases: cases.map((c) => ({ name: c.name, entries: c.entries, ms: c.ms, ...c.summary })) };
  return s;
};

const largestSection = (
  c: Case,
  m: { heapBefore: number; heapAfter: number; rssBefore: number; peakRss: number; responseBytes: number },
): Section => {
  const s = section('largest', '4. Largest request: set 1000 users x 30 documents');
  s.tables.push({
    title: 'One request over HTTP to the local server (in this process, with dynalite)',
    columns: [
      'entries',
      'time',
      'entries/s',
      'DynamoDB calls',
      'writes',
      'retries',
      'response size',
      'RSS before',
      'peak RSS',
      'RSS growth',
      'heap growth',
    ],
    rows: [
      [
        fmtNum(c.entries),
        fmtMs(c.ms),
        fmtNum(c.entries / (c.ms / 1000)),
        fmtNum(c.summary.calls),
        fmtNum(c.summary.writes),
        fmtNum(c.summary.retries),
        fmtBytes(m.responseBytes),
        fmtBytes(m.rssBefore),
        fmtBytes(m.peakRss),
        fmtBytes(m.peakRss - m.rssBefore),
        fmtBytes(m.heapAfter - m.heapBefore),
      ],
    ],
  });
  s.goals.push(goal('writes == entries', fmtNum(c.summary.writes), fmtNum(c.entries), c.summary.writes === c.entries));
  s.notes.push(
    `Against the deployed config/set function's ${DEPLOYED_TIMEOUT_MS / 1000} s timeout: ${fmtMs(c.ms)} here (${c.ms < DEPLOYED_TIMEOUT_MS ? 'within' : 'OVER'}); ` +
      `the local server ran with a ${LARGEST_TIMEOUT_MS / 1000} s limit so that the request could finish and be measured.`,
  );
  s.notes.push(
    'Memory is of the whole process, which also holds dynalite (it keeps the 30,000 items in memory): peak RSS is an upper bound for the function itself.',
    'Time is dominated by dynalite (one process, one core for the handler, dynalite and this client); on DynamoDB the 32 writes in flight are network-bound instead.',
  );
  s.data = { ms: c.ms, ...c.summary, ...m };
  return s;
};
