import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient, type ExportStatusResult, FileTransferError } from '#client/node.js';

// exportToFile over real HTTP: a stub of the API's routes and of the file storage on loopback,
// so that the file really streams through Node's fetch to the disk.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Handler = (request: Seen, response: ServerResponse) => void | Promise<void>;

let server: Server;
let base: string;
let handler: Handler;
let seen: Seen[];
let work: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(entry);
      void Promise.resolve(handler(entry, response)).catch((error: unknown) => response.destroy(error as Error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

afterEach(() => rmSync(work, { recursive: true, force: true }));

const setUp = (next: Handler) => {
  seen = [];
  handler = next;
  work = mkdtempSync(join(tmpdir(), 'client-files-'));
};

const json = (response: ServerResponse, data: unknown) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ result: { status: 'success', message: 'ok', data } }));
};

const client = () =>
  createClient({ baseUrl: base, apiKey: 'ak_1', token: 'st_1', retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });

/** Resolves once `check` holds, trying again every few milliseconds. */
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

const exportStatus = (status: ExportStatusResult['status'], extra: Partial<ExportStatusResult> = {}) => ({
  exportId: 'e-1',
  organizationId: 'acme',
  format: 'jsonl',
  status,
  rows: status === 'completed' ? 2 : 0,
  createdAt: '2026-12-07T10:00:00.000Z',
  updatedAt: '2026-12-07T10:00:00.000Z',
  ...extra,
});

/** Answers the export routes: the statuses in turn (the last one again), the file's GET by `file`. */
const exportRoutes = (statuses: ReturnType<typeof exportStatus>[], file: Handler): Handler => {
  let reads = 0;
  return (request, response) => {
    if (request.url === '/v2/organizations/exports/create') return json(response, { exportId: 'e-1' });
    if (request.url === '/v2/organizations/exports/status') {
      return json(response, statuses[Math.min(reads++, statuses.length - 1)]);
    }
    return file(request, response);
  };
};

const signedUrl = () => `${base}/files/e-1.jsonl?X-Amz-Signature=secret-signature`;

describe('exportToFile', () => {
  test('creates the export, reports each status, and streams the file to the path as it arrives', async () => {
    const first = `${JSON.stringify({ userId: 'alice', config: { email: 'NONE' } })}\n`.repeat(2000);
    const second = `${JSON.stringify({ userId: 'bob', config: { inbox: 'ALL' } })}\n`.repeat(2000);
    let partialHeldFirstHalf = false;
    setUp(
      exportRoutes(
        [exportStatus('pending'), exportStatus('in_progress'), exportStatus('completed', { downloadUrl: signedUrl() })],
        async (_request, response) => {
          response.writeHead(200, { 'content-type': 'application/x-ndjson' });
          response.write(first);
          // The second half goes out only once the first is on the disk: the client writes as it reads.
          const partial = () => readdirSync(work).find((name) => name.endsWith('.partial'));
          await until(() => {
            const name = partial();
            return name !== undefined && statSync(join(work, name)).size === first.length;
          });
          partialHeldFirstHalf = !existsSync(join(work, 'export.jsonl'));
          response.end(second);
        },
      ),
    );
    const progress: string[] = [];
    const path = join(work, 'export.jsonl');

    const final = await client().exportToFile({ organizationId: 'acme', format: 'jsonl' }, path, {
      intervalMs: 1,
      onProgress: (status) => progress.push(status.status),
    });

    expect(final).toMatchObject({ exportId: 'e-1', status: 'completed', rows: 2 });
    expect(progress).toEqual(['pending', 'in_progress', 'completed']);
    expect(partialHeldFirstHalf).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(first + second);
    expect(readdirSync(work)).toEqual(['export.jsonl']);
    const [create] = seen;
    expect(JSON.parse(create?.body.toString() ?? '')).toEqual({ data: { organizationId: 'acme', format: 'jsonl' } });
    expect(create?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.map((request) => `${request.method} ${request.url?.split('?')[0]}`)).toEqual([
      'POST /v2/organizations/exports/create',
      'POST /v2/organizations/exports/status',
      'POST /v2/organizations/exports/status',
      'POST /v2/organizations/exports/status',
      'GET /files/e-1.jsonl',
    ]);
  });

  test('a failed export resolves with its status and writes nothing', async () => {
    setUp(exportRoutes([exportStatus('in_progress'), exportStatus('failed')], () => {}));
    const path = join(work, 'export.jsonl');

    const final = await client().exportToFile({ organizationId: 'acme', format: 'csv' }, path, { intervalMs: 1 });

    expect(final.status).toBe('failed');
    expect(existsSync(path)).toBe(false);
    expect(seen.filter((request) => request.method === 'GET')).toEqual([]);
  });

  test("a refused download rejects with the storage's reason, leaves no file and does not show the URL", async () => {
    setUp(
      exportRoutes([exportStatus('completed', { downloadUrl: signedUrl() })], (_request, response) => {
        response.writeHead(403, { 'content-type': 'application/xml' });
        response.end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      }),
    );
    const path = join(work, 'export.jsonl');

    const error = await client()
      .exportToFile({ organizationId: 'acme', format: 'jsonl' }, path)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(FileTransferError);
    expect(error).toMatchObject({ direction: 'download', httpStatus: 403, code: 'AccessDenied' });
    expect((error as Error).message).toContain('Request has expired');
    expect((error as Error).message).not.toContain('secret-signature');
    expect(readdirSync(work)).toEqual([]);
    // A 403 is not retried: the same URL would be refused again.
    expect(seen.filter((request) => request.method === 'GET')).toHaveLength(1);
  });

  test('a download cut off midway is tried again, and the path holds only the whole file', async () => {
    let gets = 0;
    setUp(
      exportRoutes([exportStatus('completed', { downloadUrl: signedUrl() })], (_request, response) => {
        gets += 1;
        const body = '{"a":1}\n{"b":2}\n';
        response.writeHead(200, { 'content-length': String(body.length) });
        // The first answer stops after a few bytes.
        if (gets === 1) response.write(body.slice(0, 4), () => response.destroy());
        else response.end(body);
      }),
    );
    const path = join(work, 'export.jsonl');

    await client().exportToFile({ organizationId: 'acme', format: 'jsonl' }, path);

    expect(gets).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
    expect(readdirSync(work)).toEqual(['export.jsonl']);
  });
});
