import './quiet.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  TransactWriteCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { ensureTables } from '#local/dynamo.js';
import { LOCAL_DEPENDENCY_TIMEOUT_MS } from '#local/function-env.js';
import { ensureLocalCredential } from '#local/local-credential.js';
import { TABLES } from '#service/tables.js';
import { ENV } from '#shared/platform/environment.js';
import { REQUEST_WRITE_CONCURRENCY } from '#shared/preferences/batching.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { operationById } from '#tools/openapi/operations.js';
import { apiEvent, lambdaContext } from '../support/api-events.js';
import { CallCounter, type CallSummary } from './counting.js';
import { documents, ORG, users } from './ids.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { progress } from './progress.js';
import { sampleRss } from './stats.js';

/**
 * The largest allowed config/set (1,000 users x 5 documents) run by the real handler in this
 * process, which holds nothing else: the store runs in another process (its endpoint is
 * argv[2]), so this process's CPU time is the function's own. Then the same kind of writes
 * three ways on a smaller sample, for their CPU per entry: UpdateItem per entry (what the
 * service sends), TransactWriteItems of 100 Update actions, BatchWriteItem of 25 puts. Results
 * go back over IPC.
 */
export interface Alternative {
  name: string;
  entries: number;
  calls: number;
  ms: number;
  cpuSeconds: number;
}

export interface LargestResult {
  entries: number;
  status: number;
  ms: number;
  cpuSeconds: number;
  summary: CallSummary;
  responseBytes: number;
  rssBefore: number;
  peakRss: number;
  heapGrowth: number;
  /** Where the alternatives sent their calls: the store itself, or a stub answering {} (no transactions in the store). */
  alternativesTarget: 'store' | 'stub';
  alternatives: Alternative[];
  /** config/reset's real handler on samples: entries stored (each left empty), entries not stored. */
  resets: Alternative[];
}

const [storeEndpoint = '', stubEndpoint = '', sampleArg = '3000', usersArg = '1000', documentsArg = '5'] =
  process.argv.slice(2);
const SAMPLE = Number(sampleArg);
const SET = operationById('setConfig').path;
const RESET = operationById('resetConfig').path;
const CONFIG = { email: 'MINE', slack: 'NONE' } as const;

Object.assign(process.env, {
  AWS_REGION: 'local',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_ENDPOINT_URL_DYNAMODB: storeEndpoint,
  CREDENTIAL_CACHE_TTL_SECONDS: '60',
  // As the twin runs the function against DynamoDB Local (local/function-env.ts says why).
  [ENV.dependencyTimeoutMs]: String(LOCAL_DEPENDENCY_TIMEOUT_MS),
  ...Object.fromEntries(Object.values(TABLES).map((t) => [t.env, t.localName])),
});
const localClient = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const admin = localClient(storeEndpoint);
await ensureTables(admin);
const { apiKey, token } = await ensureLocalCredential({
  client: DynamoDBDocumentClient.from(admin),
  tableName: TABLES.credentials.localName,
});
admin.destroy();

const { handler } = await import('#functions/set-config.js');
const { createDocumentClient, documentClient } = await import('#shared/platform/aws-clients.js');
const counter = new CallCounter(TABLES.credentials.localName, { capacity: false }).attachDynamo(documentClient);
const request = (userIds: string[], documentIds: string[]) =>
  handler(
    apiEvent(SET, {
      headers: { 'x-service-api-key': apiKey, 'x-service-auth-token': token },
      body: { data: { organizationId: ORG, userIds, documentIds, config: CONFIG } },
    }),
    lambdaContext(),
  );

// One small request first: the credential read and the SDK's first-call set-up are a cold
// start's, not the large request's.
await request(['warm-up'], ['doc-warm-up']);

global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const rssBefore = process.memoryUsage.rss();
const rss = sampleRss();
const from = counter.mark();
const largestUsers = users(Number(usersArg));
const largestDocuments = documents(Number(documentsArg));
const entries = largestUsers.length * largestDocuments.length;
const shown = progress(
  'largest request',
  () => `${(counter.mark() - from).toLocaleString('en-US')} of ${entries.toLocaleString('en-US')} writes`,
);
const cpu = process.cpuUsage();
const started = performance.now();
const response = await request(largestUsers, largestDocuments);
const ms = performance.now() - started;
const cpuSeconds = cpuSecondsSince(cpu);
shown.stop();
const peakRss = rss.stop();
const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
const summary = counter.summary(from);

// The alternatives, on fresh keys, all against the same target.
const keysOf = (prefix: string): EntryKey[] =>
  users(Math.ceil(SAMPLE / 30), `${prefix}-user`)
    .flatMap((userId) =>
      documents(30, `${prefix}-doc`).map((documentId) => ({ organizationId: ORG, userId, documentId })),
    )
    .slice(0, SAMPLE);

const storeDoc = createDocumentClient(localClient(storeEndpoint));
const transactionsInStore = await storeDoc
  .send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: TABLES.config.localName,
            Item: { ...entryTableKey({ organizationId: ORG, userId: 'probe', documentId: 'probe' }) },
          },
        },
      ],
    }),
  )
  .then(
    () => true,
    () => false,
  );
const target = transactionsInStore ? storeDoc : createDocumentClient(localClient(stubEndpoint));

// The UpdateItem the service sends for one entry, taken from the store itself (no copy of its
// expression here): each alternative sends that update, or that entry in full.
let template: UpdateCommandInput | undefined;
const capture = {
  send: async (command: { input: UpdateCommandInput }) => {
    template = command.input;
    return {};
  },
};
const meta = { updatedAt: new Date().toISOString(), updatedBy: apiKey };
await new DynamoPreferenceStore(capture as unknown as DynamoDBDocumentClient, TABLES.config.localName).setChannels(
  { organizationId: ORG, userId: 'template', documentId: 'template' },
  CONFIG,
  meta,
);
const updateOf = (key: EntryKey): UpdateCommandInput => {
  const { ReturnValues: _unused, ...update } = template as UpdateCommandInput;
  const values = { ...update.ExpressionAttributeValues };
  for (const [name, value] of [
    [':user', key.userId],
    [':doc', key.documentId],
  ] as const)
    if (name in values) values[name] = value;
  return { ...update, Key: entryTableKey(key), ExpressionAttributeValues: values };
};
const itemOf = (key: EntryKey) => ({
  ...entryTableKey(key),
  organizationId: key.organizationId,
  userId: key.userId,
  documentId: key.documentId,
  scope: 'document',
  ...CONFIG,
  emailAt: meta.updatedAt,
  slackAt: meta.updatedAt,
  updatedAt: meta.updatedAt,
  updatedBy: meta.updatedBy,
  version: 1,
});
const chunks = <T>(list: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

const measure = async (
  name: string,
  keys: EntryKey[],
  write: (keys: EntryKey[]) => Promise<number>,
): Promise<Alternative> => {
  const shownAlternative = progress(name);
  const before = process.cpuUsage();
  const t = performance.now();
  const calls = await write(keys);
  const result = { name, entries: keys.length, calls, ms: performance.now() - t, cpuSeconds: cpuSecondsSince(before) };
  shownAlternative.stop();
  return result;
};

const targetStore = new DynamoPreferenceStore(target, TABLES.config.localName);
const targetCounter = new CallCounter(undefined, { capacity: false }).attachDynamo(target);
const alternatives = [
  await measure('UpdateItem per entry (today)', keysOf('alt-update'), async (keys) => {
    const calls = targetCounter.mark();
    await pMap(keys, (key) => targetStore.setChannels(key, CONFIG, meta), { concurrency: REQUEST_WRITE_CONCURRENCY });
    return targetCounter.mark() - calls;
  }),
  await measure('TransactWriteItems, 100 Update actions per call', keysOf('alt-transact'), async (keys) => {
    const calls = chunks(keys, 100);
    await pMap(
      calls,
      (chunk) =>
        target.send(
          new TransactWriteCommand({
            TransactItems: chunk.map((key) => ({
              Update: updateOf(key) as never,
            })),
          }),
        ),
      { concurrency: 4 },
    );
    return calls.length;
  }),
  await measure('BatchWriteItem, 25 puts per call (no partial update)', keysOf('alt-batch'), async (keys) => {
    let calls = 0;
    await pMap(
      chunks(keys, 25),
      async (chunk) => {
        let items: Record<string, unknown>[] | undefined = chunk.map((key) => ({ PutRequest: { Item: itemOf(key) } }));
        while (items?.length) {
          calls += 1;
          const output = await target.send(
            new BatchWriteCommand({ RequestItems: { [TABLES.config.localName]: items as never } }),
          );
          items = output.UnprocessedItems?.[TABLES.config.localName] as Record<string, unknown>[] | undefined;
        }
      },
      { concurrency: 4 },
    );
    return calls;
  }),
];

// config/reset through its real handler, on a sample of the largest request's entries (every
// channel of each: each entry is left empty) and on as many entries that are not stored (a reset
// is safe to repeat): CPU per entry, from which the largest reset is projected.
const { handler: resetHandler } = await import('#functions/reset-config.js');
const resetSample = async (name: string, userIds: string[], documentIds: string[]): Promise<Alternative> => {
  const shownReset = progress(name);
  const calls = counter.mark();
  const before = process.cpuUsage();
  const t = performance.now();
  const answer = await resetHandler(
    apiEvent(RESET, {
      headers: { 'x-service-api-key': apiKey, 'x-service-auth-token': token },
      body: { data: { organizationId: ORG, userIds, documentIds } },
    }),
    lambdaContext(),
  );
  const ms = performance.now() - t;
  const cpuSeconds = cpuSecondsSince(before);
  shownReset.stop();
  if (answer.statusCode !== 200) throw new Error(`${name}: HTTP ${answer.statusCode}`);
  return { name, entries: userIds.length * documentIds.length, calls: counter.mark() - calls, ms, cpuSeconds };
};
const resetUsers = Math.max(1, Math.min(largestUsers.length, Math.ceil(SAMPLE / largestDocuments.length)));
const resets = [
  await resetSample('entries stored', largestUsers.slice(0, resetUsers), largestDocuments),
  await resetSample('entries not stored', users(resetUsers, 'never-set'), largestDocuments),
];

const result: LargestResult = {
  resets,
  entries,
  status: response.statusCode ?? 0,
  ms,
  cpuSeconds,
  summary,
  responseBytes: Buffer.byteLength(response.body ?? ''),
  rssBefore,
  peakRss,
  heapGrowth,
  alternativesTarget: transactionsInStore ? 'store' : 'stub',
  alternatives,
};
process.send?.(result, () => process.exit(0));
