import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type LocalService, startLocalService } from '../support/local-service.js';

// exports/create and exports/status over HTTP against the local twin (in memory): the job writes
// the organization's entries, category layers and schedules to the files bucket (s3rver) in the
// import's row format, and the status answers a presigned GET of the file once completed.

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
  const ok = async (path: string, data: unknown) => {
    const { status, body } = await service.call(path, data);
    expect({ path, status, error: body.error }).toEqual({ path, status: 200, error: undefined });
  };
  await ok('/v2/notifications/config/set', {
    organizationId: 'acme',
    userIds: ['ann', 'bob'],
    documentIds: ['doc-1'],
    config: { email: 'NONE' },
  });
  await ok('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], config: { inbox: 'MINE' } });
  await ok('/v2/notifications/config/set', {
    organizationId: 'acme',
    userIds: ['ann'],
    category: 'comment',
    config: { slack: 'NONE' },
  });
  await ok('/v2/notifications/schedule/set', {
    organizationId: 'acme',
    userIds: ['bob'],
    schedule: { timeZone: 'Europe/Berlin' },
  });
  await ok('/v2/notifications/config/set', { organizationId: 'globex', userIds: ['eve'], config: { email: 'ALL' } });
});
afterAll(async () => {
  await service?.close();
});

type Status = { status: string; rows: number; downloadUrl?: string; downloadExpiresAt?: string; format: string };

const exported = async (data: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const started = await service.call('/v2/organizations/exports/create', data, { headers });
  expect(started.status).toBe(200);
  const exportId = (started.body.result?.data as { exportId: string } | undefined)?.exportId ?? '';
  const deadline = Date.now() + 60_000;
  let status: Status;
  do {
    await sleep(100);
    const answer = await service.call('/v2/organizations/exports/status', {
      organizationId: data.organizationId,
      exportId,
    });
    status = answer.body.result?.data as Status;
  } while (status.status !== 'completed' && status.status !== 'failed' && Date.now() < deadline);
  return { exportId, status };
};

const lines = (text: string) => text.split(/\r?\n/).filter(Boolean);

describe('exports', () => {
  test("jsonl: every entry, category layer and schedule of the organization, and no other organization's", async () => {
    const { status } = await exported({ organizationId: 'acme', format: 'jsonl' });
    expect(status).toMatchObject({ status: 'completed', format: 'jsonl', rows: 5 });
    const file = await fetch(status.downloadUrl as string);
    expect(file.status).toBe(200);
    const rows = lines(await file.text()).map((line) => JSON.parse(line));
    expect(rows).toHaveLength(5);
    expect(rows).toEqual(
      expect.arrayContaining([
        { userId: 'ann', documentId: 'doc-1', config: { email: 'NONE' } },
        { userId: 'bob', documentId: 'doc-1', config: { email: 'NONE' } },
        { userId: 'ann', config: { inbox: 'MINE' } },
        { userId: 'ann', category: 'comment', config: { slack: 'NONE' } },
        { userId: 'bob', schedule: expect.objectContaining({ timeZone: 'Europe/Berlin' }) },
      ]),
    );
    expect(Date.parse(status.downloadExpiresAt as string) - Date.now()).toBeGreaterThan(59 * 60_000);
  });

  test('csv of named documents: the header, then one line per row; schedules have no column', async () => {
    const { status } = await exported({ organizationId: 'acme', format: 'csv', documentIds: ['doc-1'] });
    expect(status).toMatchObject({ status: 'completed', rows: 2 });
    const text = await (await fetch(status.downloadUrl as string)).text();
    const [header, ...rest] = lines(text);
    expect(header).toBe('userId,documentId,category,inbox,email,slack');
    expect(rest.sort()).toEqual(['ann,doc-1,,,NONE,', 'bob,doc-1,,,NONE,']);
  });

  test("another organization's export is unknown; a wrong format is refused", async () => {
    const { exportId } = await exported({ organizationId: 'globex', format: 'jsonl' });
    const other = await service.call('/v2/organizations/exports/status', { organizationId: 'acme', exportId });
    expect(other.status).toBe(404);
    const wrong = await service.call('/v2/organizations/exports/create', { organizationId: 'acme', format: 'xml' });
    expect(wrong.status).toBe(400);
  });

  test('an Idempotency-Key repeat answers the same export', async () => {
    const key = { 'idempotency-key': 'export-once-1' };
    const first = await service.call(
      '/v2/organizations/exports/create',
      { organizationId: 'acme', format: 'csv' },
      { headers: key },
    );
    const again = await service.call(
      '/v2/organizations/exports/create',
      { organizationId: 'acme', format: 'csv' },
      { headers: key },
    );
    expect(again.body.result?.data).toEqual(first.body.result?.data);
  });
});
