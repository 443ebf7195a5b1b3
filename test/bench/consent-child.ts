import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AwsCall } from '#local/call-recorder.js';
import { textSha256 } from '#shared/consent/consent.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import type { HistoryChange } from '#shared/history/results.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { operationById } from '#tools/openapi/operations.js';
import { startLocalService } from '../support/local-service.js';
import { ORG, users } from './ids.js';

/**
 * The consent figures through a fresh twin in memory (a process of its own, as every twin): write
 * calls of a set of argv[2] users without and with a consent (its 1 KB text already stored), the
 * bytes evidence adds to an entry, the read calls of a resolve over those entries, and the time
 * of users/export pages of 1,000 records (argv[3] of them). Sends the figures back over IPC.
 */
const [usersArg = '100', pagesArg = '5'] = process.argv.slice(2);
const SET = operationById('setConfig').path;
const RESOLVE = operationById('resolveConfig').path;
const EXPORT = operationById('exportUser').path;

const calls: AwsCall[] = [];
const service = await startLocalService({ shellEnvFile: false, recordAwsCalls: (call) => calls.push(call) });
/** The IAM actions the route's own function called (the change publisher runs beside it), by count. */
const counted = async (send: () => Promise<number>, route = 'setConfig') => {
  calls.length = 0;
  const status = await send();
  if (status !== 200) throw new Error(`answered ${status}`);
  const byAction: Record<string, number> = {};
  for (const call of calls) {
    if (call.function === route) byAction[call.action] = (byAction[call.action] ?? 0) + 1;
  }
  return byAction;
};
const TEXT = 'I agree to receive email about activity in my documents. '.repeat(18).slice(0, 1024);
const consent = {
  source: 'settings',
  textVersion: 'v1',
  text: TEXT,
  ipAddress: '203.0.113.7',
  userAgent: 'Mozilla/5.0',
};
const set = (userIds: string[], withConsent: boolean, documentId: string) =>
  service.call(SET, {
    organizationId: ORG,
    userIds,
    documentIds: [documentId],
    config: { email: 'NONE' },
    ...(withConsent ? { consent } : {}),
  });
try {
  const people = users(Number(usersArg));
  // Warm: the handler loaded, the credential read, the text stored once.
  await set(['warm-up'], true, 'doc-warm');
  const plain = await counted(async () => (await set(people, false, 'doc-a')).status);
  const stated = await counted(async () => (await set(people, true, 'doc-b')).status);
  const itemBytes = async (documentId: string) => {
    const { Item } = await service.doc.send(
      new GetCommand({
        TableName: service.tables.config,
        Key: entryTableKey({ organizationId: ORG, userId: people[0] as string, documentId }),
      }),
    );
    return Buffer.byteLength(JSON.stringify(Item ?? {}), 'utf8');
  };
  const entryBytes = { plain: await itemBytes('doc-a'), stated: await itemBytes('doc-b') };
  const resolve = (documentId: string) => async () =>
    (await service.call(RESOLVE, { organizationId: ORG, documentId, userIds: people })).status;
  const resolveReads = {
    plain: await counted(resolve('doc-a'), 'resolveConfig'),
    stated: await counted(resolve('doc-b'), 'resolveConfig'),
  };

  // A user with 1,000 changes a page, each citing the text: the export's pages over HTTP.
  const pages = Number(pagesArg);
  const history = new DynamoHistoryStore(service.doc, service.tables.history);
  const changes = pages * 1_000;
  for (let start = 0; start < changes; start += 500) {
    await history.recordAll(
      Array.from({ length: 500 }, (_, j) => {
        const i = start + j;
        const change: HistoryChange = {
          changeId: `c-${i}`,
          organizationId: ORG,
          userId: 'exported',
          documentId: `doc-${i}`,
          scope: 'document',
          category: null,
          cause: 'set',
          changedAt: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(),
          changedBy: 'ak_bench',
          evidence: { ...consent, via: 'api', capturedAt: '2026-01-01T00:00:00.000Z', textSha256: textSha256(TEXT) },
          before: {},
          after: { email: 'NONE' },
        };
        delete (change.evidence as { text?: string }).text;
        return { recorded: { change, sequenceNumber: String(100_000 + i) }, expiresAt: 2_000_000_000 };
      }),
    );
  }
  const pageMs: number[] = [];
  let records = 0;
  let cursor: string | undefined;
  do {
    const started = performance.now();
    const { status, body } = await service.call(EXPORT, {
      organizationId: ORG,
      userId: 'exported',
      ...(cursor ? { cursor } : {}),
    });
    pageMs.push(performance.now() - started);
    if (status !== 200) throw new Error(`export answered ${status}`);
    const data = body.result?.data as { records: unknown[]; nextCursor?: string };
    records += data.records.length;
    cursor = data.nextCursor;
  } while (cursor);
  process.send?.({ plain, stated, entryBytes, resolveReads, pageMs, records, changes });
} finally {
  await service.close();
}
