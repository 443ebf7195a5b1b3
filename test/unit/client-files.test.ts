import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { createClient, type ExportStatusResult, FileTransferError, type ImportStatusResult } from '#client/node.js';

// exportToFile and importFile over real HTTP: a stub of the API's routes and of the file storage on loopback,
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

const importStatus = (
  status: ImportStatusResult['status'],
  extra: Partial<ImportStatusResult> = {},
): ImportStatusResult => ({
  importId: 'i-1',
  organizationId: 'acme',
  format: 'jsonl',
  dryRun: false,
  status,
  rowsRead: status === 'completed' ? 3 : 0,
  rowsApplied: status === 'completed' ? 3 : 0,
  rowsUnchanged: 0,
  rowsRejected: 0,
  rowsPartlyMapped: 0,
  errors: [],
  createdAt: '2026-12-07T10:00:00.000Z',
  updatedAt: '2026-12-07T10:00:00.000Z',
  ...extra,
});

/** Answers the import routes (the statuses in turn, the last one again) and the upload's PUT by `upload`. */
const importRoutes = (
  statuses: ImportStatusResult[],
  upload: Handler = (_request, response) => {
    response.end();
  },
): Handler => {
  let reads = 0;
  return (request, response) => {
    if (request.url === '/v2/organizations/imports/create') {
      return json(response, {
        importId: 'i-1',
        uploadUrl: `${base}/files/i-1?X-Amz-Signature=secret-signature`,
        uploadExpiresAt: '2026-12-07T11:00:00.000Z',
      });
    }
    if (request.url === '/v2/organizations/imports/status') {
      return json(response, statuses[Math.min(reads++, statuses.length - 1)]);
    }
    return upload(request, response);
  };
};

const puts = () => seen.filter((request) => request.method === 'PUT');
const spooled = () => readdirSync(tmpdir()).filter((name) => name.startsWith('notification-preferences-import-'));
const LINES = `${['alice', 'bob', 'carol'].map((userId) => JSON.stringify({ userId, config: { email: 'NONE' } })).join('\n')}\n`;

describe('importFile', () => {
  test('creates the import, uploads the file with its Content-Length, and reports each status until it ends', async () => {
    setUp(
      importRoutes([
        importStatus('waiting_upload'),
        importStatus('pending'),
        importStatus('in_progress'),
        importStatus('completed'),
      ]),
    );
    const path = join(work, 'people.jsonl');
    // Larger than a stream's chunk: the file goes out in many pieces under one length.
    const content = LINES.repeat(20_000);
    writeFileSync(path, content);
    const progress: string[] = [];

    const final = await client().importFile({ organizationId: 'acme', format: 'jsonl', dryRun: true }, path, {
      intervalMs: 1,
      onProgress: (status) => progress.push(status.status),
    });

    expect(final).toMatchObject({ importId: 'i-1', status: 'completed', rowsApplied: 3 });
    expect(progress).toEqual(['waiting_upload', 'pending', 'in_progress', 'completed']);
    const [create] = seen;
    expect(JSON.parse(create?.body.toString() ?? '')).toEqual({
      data: { organizationId: 'acme', format: 'jsonl', dryRun: true },
    });
    expect(create?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    const [put] = puts();
    expect(put?.url).toBe('/files/i-1?X-Amz-Signature=secret-signature');
    expect(put?.headers['content-length']).toBe(String(Buffer.byteLength(content)));
    expect(put?.headers['transfer-encoding']).toBeUndefined();
    expect(put?.body.toString()).toBe(content);
    expect(seen.map((request) => `${request.method} ${request.url?.split('?')[0]}`).slice(0, 3)).toEqual([
      'POST /v2/organizations/imports/create',
      'PUT /files/i-1',
      'POST /v2/organizations/imports/status',
    ]);
  });

  test('a failed import resolves with its status and its first reasons', async () => {
    const errors = [{ line: 1, message: 'data.config.email: must be one of ALL, MINE, NONE' }];
    setUp(importRoutes([importStatus('failed', { rowsRead: 1000, rowsRejected: 1000, errors })]));

    const final = await client().importFile({ organizationId: 'acme', format: 'csv' }, Buffer.from(LINES), {
      intervalMs: 1,
    });

    expect(final).toMatchObject({ status: 'failed', rowsRejected: 1000, errors });
    expect(puts()[0]?.headers['content-length']).toBe(String(Buffer.byteLength(LINES)));
  });

  test('a stream of unknown size is written to a temporary file first, sent with its length, and the file removed', async () => {
    setUp(importRoutes([importStatus('completed')]));
    const before = spooled();

    await client().importFile({ organizationId: 'acme', format: 'knock' }, Readable.from([LINES, LINES]));

    const [put] = puts();
    expect(put?.headers['content-length']).toBe(String(2 * Buffer.byteLength(LINES)));
    expect(put?.body.toString()).toBe(LINES + LINES);
    expect(spooled()).toEqual(before);
  });

  test('a stream with its size is sent as it is read, with that length', async () => {
    setUp(importRoutes([importStatus('completed')]));
    const before = spooled();

    await client().importFile(
      { organizationId: 'acme', format: 'jsonl', compression: 'gzip' },
      { stream: Readable.from([Buffer.from(LINES)]), size: Buffer.byteLength(LINES) },
    );

    expect(puts()[0]?.headers['content-length']).toBe(String(Buffer.byteLength(LINES)));
    expect(puts()[0]?.body.toString()).toBe(LINES);
    expect(spooled()).toEqual(before);
  });

  test("a refused upload rejects with the storage's reason and reads no status", async () => {
    setUp(
      importRoutes([importStatus('waiting_upload')], (_request, response) => {
        response.writeHead(403, { 'content-type': 'application/xml' });
        response.end(
          '<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>',
        );
      }),
    );

    const error = await client()
      .importFile({ organizationId: 'acme', format: 'jsonl' }, Buffer.from(LINES))
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(FileTransferError);
    expect(error).toMatchObject({ direction: 'upload', httpStatus: 403, code: 'SignatureDoesNotMatch' });
    expect((error as Error).message).not.toContain('secret-signature');
    expect(puts()).toHaveLength(1);
    expect(seen.filter((request) => request.url === '/v2/organizations/imports/status')).toEqual([]);
  });

  test('an upload the storage answers with a 5xx is sent again, whole', async () => {
    let attempts = 0;
    setUp(
      importRoutes([importStatus('completed')], (_request, response) => {
        attempts += 1;
        response.writeHead(attempts === 1 ? 503 : 200);
        response.end(
          attempts === 1
            ? '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>'
            : '',
        );
      }),
    );
    const path = join(work, 'people.jsonl');
    writeFileSync(path, LINES);

    const final = await client().importFile({ organizationId: 'acme', format: 'jsonl' }, path);

    expect(final.status).toBe('completed');
    expect(puts().map((put) => put.body.toString())).toEqual([LINES, LINES]);
  });

  test('a path that is not there, or not a file, rejects before any import is created', async () => {
    setUp(importRoutes([importStatus('completed')]));

    await expect(
      client().importFile({ organizationId: 'acme', format: 'jsonl' }, join(work, 'missing.jsonl')),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(client().importFile({ organizationId: 'acme', format: 'jsonl' }, work)).rejects.toThrow(
      'is not a file',
    );
    expect(seen).toEqual([]);
  });
});
