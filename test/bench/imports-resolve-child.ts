import './quiet.js';
import autocannon from 'autocannon';
import { operationById } from '#tools/openapi/operations.js';
import { startLocalService } from '../support/local-service.js';
import { ORG, users } from './ids.js';
import { fileStream } from './import-files.js';

/**
 * config/resolve's latency on the twin without an import, then during one, in one run (forked by imports.ts; argv: requests per window, connections, rows of the import). The
 * twin (its functions, its DynamoDB Local and S3-compatible server) and the load run in this
 * process, for every window alike. The import is created through the API, its file uploaded to
 * the presigned URL, and the window starts once the consumer is at work; the figures go back
 * over IPC.
 */
const [requestsArg = '2000', connectionsArg = '8', rowsArg = '30000'] = process.argv.slice(2);
const requests = Number(requestsArg);
const connections = Number(connectionsArg);
const rows = Number(rowsArg);

const READERS = users(100, 'reader');
const DOCUMENT = 'doc-resolve';
const IMPORTED_ORG = 'bench-import-org';

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
const importStatus = async (importId: string) =>
  (await must(operationById('getImportStatus').path, { organizationId: IMPORTED_ORG, importId })) as {
    status: string;
    rowsRead: number;
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

  const created = (await must(operationById('createImport').path, {
    organizationId: IMPORTED_ORG,
    format: 'jsonl',
  })) as {
    importId: string;
    uploadUrl: string;
  };
  const chunks: Buffer[] = [];
  for await (const chunk of fileStream(rows, 'jsonl')) chunks.push(chunk as Buffer);
  const upload = await fetch(created.uploadUrl, { method: 'PUT', body: Buffer.concat(chunks) });
  if (!upload.ok) throw new Error(`the upload answered ${upload.status}`);
  let atStart = await importStatus(created.importId);
  for (let waited = 0; atStart.rowsRead === 0 && waited < 300; waited += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    atStart = await importStatus(created.importId);
  }
  windows.push(await window('during an import'));
  const atEnd = await importStatus(created.importId);
  const figures: ResolveDuringImport = {
    windows,
    importRows: { atStart: atStart.rowsRead, atEnd: atEnd.rowsRead, status: atEnd.status },
  };
  process.send?.(figures);
} finally {
  await service.close();
}
process.exit(0);
