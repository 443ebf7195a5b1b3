import './quiet.js';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { LOCAL_REGION } from '#local/lambda-context.js';
import { importJob } from '#shared/imports/kind.js';
import { DynamoJobRecords } from '#shared/jobs/records.js';
import { operationById } from '#tools/openapi/operations.js';
import { startLocalService } from '../support/local-service.js';
import { ORG, users } from './ids.js';
import type { TwinTables } from './imports-child.js';

/**
 * config/resolve's latency on the twin without an import, then during one, in one run (forked
 * by imports.ts; argv: requests per window, connections, requests a second, rows of the import,
 * its writes a second). The load is steady, as live traffic is, below what the twin can answer.
 * The twin (its functions and its DynamoDB Local) and the load run in this process, for every
 * window alike. The import runs as on AWS, where its consumer is a function of its own and only
 * the table is shared: in a process of its own (imports-child.ts `beside`), into the twin's
 * tables at the given write bound; the window starts at its first write. The figures go back
 * over IPC.
 */
const [requestsArg, connectionsArg, rateArg, rowsArg, boundArg] = process.argv.slice(2);
const rate = Number(rateArg);
const writesPerSecond = Number(boundArg);
const requests = Number(requestsArg);
const connections = Number(connectionsArg);
const rows = Number(rowsArg);

const READERS = users(100, 'reader');
const DOCUMENT = 'doc-resolve';
const CHILD = fileURLToPath(new URL('./imports-child.ts', import.meta.url));

export interface Window {
  name: string;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

export interface ResolveDuringImport {
  windows: Window[];
  /** The import's rows read when its window started and ended, and its status at the end. */
  importRows: { atStart: number; atEnd: number; status: string };
}

const service = await startLocalService();
const must = async (path: string, data: unknown) => {
  const response = await service.call(path, data);
  if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status}`);
  return response.body.result?.data as Record<string, unknown>;
};
const window = async (name: string): Promise<Window> => {
  const result = await autocannon({
    url: `${service.baseUrl}${operationById('resolveConfig').path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...service.authHeaders() },
    body: JSON.stringify({
      data: {
        organizationId: ORG,
        documentId: DOCUMENT,
        userIds: READERS,
        activity: { involvedUserIds: READERS.slice(0, 5) },
      },
    }),
    connections,
    pipelining: 1,
    overallRate: rate,
    // A count of requests, not a duration: a window on a busy machine still holds enough for its p99.
    amount: requests,
    timeout: 10,
  });
  return {
    name,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result['2xx'],
    errors: result.errors + result.non2xx,
  };
};

try {
  const set = operationById('setConfig').path;
  await must(set, {
    organizationId: ORG,
    userIds: READERS,
    documentIds: [DOCUMENT],
    config: { email: 'ALL', slack: 'MINE' },
  });
  await must(set, { organizationId: ORG, userIds: READERS.slice(0, 50), config: { inbox: 'NONE' } });
  // Warm: the resolve function loaded and its caches filled, as in every window after.
  await window('warm-up');
  const windows = [await window('without an import')];

  // The import consumer in a process of its own, into the twin's tables at the bound it is given.
  const importer = fork(CHILD, ['beside', 'jsonl', String(rows)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      BENCH_TWIN: JSON.stringify({
        endpoint: service.dynamoEndpoint,
        region: LOCAL_REGION,
        credential: service.awsCredential,
        tables: { config: service.tables.config, migrations: service.tables.migrations },
        writesPerSecond,
      } satisfies TwinTables),
    },
  });
  const exited = new Promise<number | null>((resolve) => importer.once('exit', resolve));
  let importId: string | undefined;
  const writing = new Promise<void>((resolve, reject) => {
    importer.on('message', (message: { importId?: string; writing?: boolean }) => {
      if (message.importId) importId = message.importId;
      if (message.writing) resolve();
    });
    void exited.then((code) => reject(new Error(`the import beside the twin exited (${code}) before writing`)));
  });
  const records = new DynamoJobRecords(importJob, service.doc, service.tables.migrations);
  const rowsRead = async () => {
    const record = importId === undefined ? undefined : await records.get(importId);
    return { status: record?.status ?? 'not created', rowsRead: record?.rowsRead ?? 0 };
  };
  try {
    await writing;
    const atStart = await rowsRead();
    windows.push(await window('during an import'));
    const atEnd = await rowsRead();
    const figures: ResolveDuringImport = {
      windows,
      importRows: { atStart: atStart.rowsRead, atEnd: atEnd.rowsRead, status: atEnd.status },
    };
    process.send?.(figures);
  } finally {
    importer.kill('SIGKILL');
    await exited;
  }
} finally {
  await service.close();
}
process.exit(0);
