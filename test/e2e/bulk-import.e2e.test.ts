import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// imports/create and imports/status over HTTP against the local twin (in memory): the upload to
// the presigned URL (s3rver) starts the import by itself, as S3's notice does on AWS.

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

type Status = {
  status: string;
  rowsRead: number;
  rowsApplied: number;
  rowsUnchanged: number;
  rowsRejected: number;
  errors: { line: number; message: string }[];
  errorReportUrl?: string;
  error?: string;
};

const statusOf = async (organizationId: string, importId: string): Promise<Status> =>
  (await service.call('/v2/organizations/imports/status', { organizationId, importId })).body.result?.data as Status;

const imported = async (data: Record<string, unknown>, file: string | Buffer) => {
  const created = await service.call('/v2/organizations/imports/create', data);
  expect(created.status).toBe(200);
  const { importId, uploadUrl } = (created.body.result?.data ?? {}) as { importId: string; uploadUrl: string };
  expect((await statusOf(data.organizationId as string, importId)).status).toBe('waiting_upload');
  const upload = await fetch(uploadUrl, { method: 'PUT', body: file });
  expect(upload.status).toBe(200);
  const deadline = Date.now() + 60_000;
  let status: Status;
  do {
    await sleep(100);
    status = await statusOf(data.organizationId as string, importId);
  } while (status.status !== 'completed' && status.status !== 'failed' && Date.now() < deadline);
  return { importId, status };
};

const configOf = async (userId: string, documentIds?: string[]) =>
  (
    await service.call('/v2/notifications/config/get', {
      organizationId: 'initech',
      userId,
      ...(documentIds ? { documentIds } : {}),
    })
  ).body.result?.data as { documentId: string | null; config: Record<string, string>; categories: unknown }[];

const FILE = [
  '{"userId":"ann","documentId":"doc-1","config":{"email":"NONE"}}',
  '{"userId":"ann","category":"comment","config":{"slack":"NONE"}}',
  '{"userId":"bob","schedule":{"timeZone":"Europe/Berlin"}}',
  '{"userId":"bob","config":{"email":"LOUD"}}',
  '',
].join('\n');

test('an uploaded file starts its import: good rows apply, a bad one is reported, and the same file again changes nothing', async () => {
  const { status } = await imported({ organizationId: 'initech', format: 'jsonl' }, FILE);
  expect(status).toMatchObject({ status: 'completed', rowsRead: 4, rowsApplied: 3, rowsUnchanged: 0, rowsRejected: 1 });
  expect(status.errors).toEqual([{ line: 4, message: expect.stringContaining('config.email') }]);
  const report = await (await fetch(status.errorReportUrl as string)).text();
  expect(
    report
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  ).toEqual(status.errors);
  const [doc] = await configOf('ann', ['doc-1']);
  expect(doc?.config).toEqual({ email: 'NONE' });
  const schedule = await service.call('/v2/notifications/schedule/get', { organizationId: 'initech', userId: 'bob' });
  expect(schedule.body.result?.data).toMatchObject({ schedule: { timeZone: 'Europe/Berlin' } });
  // The stream carries each applied row to the history as an import's change.
  const history = () =>
    service
      .call('/v2/notifications/config/history', { organizationId: 'initech', userId: 'ann' })
      .then((answer) => (answer.body.result?.data as { changes?: { cause: string }[] } | undefined)?.changes ?? []);
  const changes = await eventually(history, (found) => found.length === 2);
  expect(changes.map((change) => change.cause)).toEqual(['import', 'import']);

  const again = await imported({ organizationId: 'initech', format: 'jsonl' }, gzipSync(FILE));
  expect(again.status.status).toBe('failed'); // gzip bytes without compression: not JSON lines
  const same = await imported({ organizationId: 'initech', format: 'jsonl', compression: 'gzip' }, gzipSync(FILE));
  expect(same.status).toMatchObject({ status: 'completed', rowsApplied: 0, rowsUnchanged: 3, rowsRejected: 1 });
  await sleep(500);
  expect(await history()).toHaveLength(2);
});

test('a dry run counts what would change and writes nothing', async () => {
  const { status } = await imported(
    { organizationId: 'initech', format: 'csv', dryRun: true },
    'userId,documentId,email\r\ncarl,doc-9,NONE\r\n',
  );
  expect(status).toMatchObject({ status: 'completed', rowsRead: 1, rowsApplied: 1, rowsRejected: 0 });
  const [doc] = await configOf('carl', ['doc-9']);
  expect(doc?.config).toEqual({});
});

test('an unknown import id, or one of another organization, is NOT_FOUND', async () => {
  const created = await service.call('/v2/organizations/imports/create', { organizationId: 'initech', format: 'csv' });
  const { importId } = (created.body.result?.data ?? {}) as { importId: string };
  for (const data of [
    { organizationId: 'globex', importId },
    { organizationId: 'initech', importId: '01KBX9D2V7Q3M8N4R5T6W1YZ0A' },
  ]) {
    const answer = await service.call('/v2/organizations/imports/status', data);
    expect(answer.status).toBe(404);
  }
});
