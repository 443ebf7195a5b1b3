import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// users/erase over HTTP against the local twin: the entries, then the history, are gone; the
// erasure's own changes never reach the history; User Erased is published once it completes.

let service: LocalService;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'erasure-'));
  service = await startLocalService({ inMemory: false, dataDir });
});
afterAll(async () => {
  await service?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const ok = async (path: string, data: unknown) => {
  const { status, body } = await service.call(path, data);
  expect({ path, status, error: body.error }).toEqual({ path, status: 200, error: undefined });
  return body.result?.data as Record<string, unknown>;
};

const history = async (userId: string) =>
  ((await ok('/v2/notifications/config/history', { organizationId: 'acme', userId })).changes as unknown[]).length;

test("an erasure deletes the user's entries and history in the organization, and nothing else", async () => {
  await ok('/v2/notifications/config/set', {
    organizationId: 'acme',
    userIds: ['mallory', 'trent'],
    documentIds: ['doc-1', 'doc-2'],
    config: { email: 'NONE' },
  });
  await ok('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['mallory'], config: { inbox: 'MINE' } });
  await ok('/v2/notifications/config/set', {
    organizationId: 'globex',
    userIds: ['mallory'],
    config: { inbox: 'ALL' },
  });
  // The history has the writes before the erasure starts.
  expect(
    await eventually(
      () => history('mallory'),
      (count) => count === 3,
    ),
  ).toBe(3);

  const { erasureId } = await ok('/v2/organizations/users/erase', { organizationId: 'acme', userId: 'mallory' });
  const again = await ok('/v2/organizations/users/erase', { organizationId: 'acme', userId: 'mallory' });
  const status = await eventually(
    () => ok('/v2/organizations/users/erase/status', { organizationId: 'acme', erasureId }),
    (view) => view.status === 'completed' || view.status === 'failed',
  );
  // A repeat while it was active answers the same id; one after it completed would start another.
  if (again.erasureId !== erasureId) {
    expect(await ok('/v2/organizations/users/erase/status', { organizationId: 'acme', erasureId })).toMatchObject({
      status: 'completed',
    });
  }
  expect(status).toMatchObject({
    erasureId,
    organizationId: 'acme',
    userId: 'mallory',
    status: 'completed',
    erased: 3,
  });

  const [doc1, organization] = [
    (
      await ok('/v2/notifications/config/get', { organizationId: 'acme', userId: 'mallory', documentIds: ['doc-1'] })
    )[0],
    (await ok('/v2/notifications/config/get', { organizationId: 'acme', userId: 'mallory' }))[0],
  ] as unknown as { config: object }[];
  expect([doc1?.config, organization?.config]).toEqual([{}, {}]);
  // Other users and other organizations keep theirs.
  const [trent] = (await ok('/v2/notifications/config/get', {
    organizationId: 'acme',
    userId: 'trent',
    documentIds: ['doc-1'],
  })) as unknown as { config: object }[];
  expect(trent?.config).toEqual({ email: 'NONE' });
  const [elsewhere] = (await ok('/v2/notifications/config/get', {
    organizationId: 'globex',
    userId: 'mallory',
  })) as unknown as { config: object }[];
  expect(elsewhere?.config).toEqual({ inbox: 'ALL' });

  // The erasure's changes went through the stream too: announced, never stored in the history.
  await service.streams?.caughtUp();
  await service.streams?.caughtUp();
  expect(await history('mallory')).toBe(0);
  expect(await history('trent')).toBe(2);
  const events = (await readFile(join(dataDir, 'events.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { 'detail-type': string; detail: Record<string, unknown> });
  expect(events.filter((e) => e['detail-type'] === 'User Erased').map((e) => e.detail)).toEqual([
    { id: `erasure:${erasureId}:completed`, organizationId: 'acme', userId: 'mallory', erasureId, erased: 3 },
  ]);
  const erasedChanges = events.filter(
    (e) => e['detail-type'] === 'Notification Config Changed' && e.detail.cause === 'erasure',
  );
  expect(erasedChanges).toHaveLength(3);
  // No erased value is published again.
  expect(erasedChanges.map((e) => [e.detail.before, e.detail.after])).toEqual([
    [null, {}],
    [null, {}],
    [null, {}],
  ]);

  // A write after the erasure is kept, like any new write.
  await ok('/v2/notifications/config/set', {
    organizationId: 'acme',
    userIds: ['mallory'],
    documentIds: ['doc-1'],
    config: { slack: 'ALL' },
  });
  expect(
    await eventually(
      () => history('mallory'),
      (count) => count === 1,
    ),
  ).toBe(1);
}, 90_000);

test('status of an unknown erasure, or of another organization: NOT_FOUND', async () => {
  const { erasureId } = await ok('/v2/organizations/users/erase', { organizationId: 'acme', userId: 'nobody' });
  for (const data of [
    { organizationId: 'acme', erasureId: '01KAR4B2N7QH3M8W6T1X9D5C4F' },
    { organizationId: 'globex', erasureId },
  ]) {
    const { status, body } = await service.call('/v2/organizations/users/erase/status', data);
    expect({ status, error: body.error }).toEqual({
      status: 404,
      error: { status: 'NOT_FOUND', message: 'Erasure not found.' },
    });
  }
});
