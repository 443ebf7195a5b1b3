import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readAwsCredential } from '#local/aws-credential.js';
import { dataPaths, readRunningServer } from '#local/data-dir.js';
import { dbPathHolder } from '#local/dynamodb-local.js';
import { TABLES } from '#service/tables.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import type { HistoryChange } from '#shared/history/results.js';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { startNpmStartProcess } from '../support/npm-start-process.js';

// Every change of a config entry reaches the history once, from the config table's stream,
// through the local twin of the stream and its event source mapping; the events go to the
// data directory's events.jsonl.

/** Polls until `check` holds, or fails with what was last seen. The 5 s a change may take, and slack for a busy machine. */
const eventLines = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as { 'detail-type': string; source: string; detail: { id: string } & Record<string, unknown> },
    );

describe('set, reset and migration in the history, once each', () => {
  let service: LocalService;
  let dataDir: string;
  let history: DynamoHistoryStore;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'change-history-'));
    service = await startLocalService({ inMemory: false, dataDir });
    history = new DynamoHistoryStore(service.doc, service.tables.history);
  });
  afterAll(async () => {
    await service?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const changesOf = async (userId: string) =>
    (await history.list({ organizationId: 'acme', userId, limit: 100 })).changes;
  const summary = (changes: HistoryChange[]) =>
    changes.map(({ documentId, cause, changedBy, before, after }) => ({ documentId, cause, changedBy, before, after }));

  test('each write is one history item, newest first, with who, why, before and after', async () => {
    const ok = async (path: string, data: unknown) => {
      const { status, body } = await service.call(path, data);
      expect({ path, status, body: status === 200 ? 'ok' : body }).toEqual({ path, status: 200, body: 'ok' });
      return body.result?.data as Record<string, unknown>;
    };
    await ok('/v2/notifications/config/set', {
      organizationId: 'acme',
      userIds: ['alice'],
      documentIds: ['doc-1'],
      config: { inbox: 'NONE', email: 'ALL' },
    });
    await ok('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['alice'], config: { slack: 'ALL' } });
    // The same value again changes nothing: no history item.
    await ok('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['alice'], config: { slack: 'ALL' } });
    await ok('/v2/notifications/config/reset', { organizationId: 'acme', userIds: ['alice'] });
    await ok('/v2/notifications/config/reset', {
      organizationId: 'acme',
      userIds: ['alice'],
      documentIds: ['doc-1'],
      channels: ['inbox'],
    });
    const { migrationId } = await ok('/v2/organizations/documents/migrate', {
      organizationId: 'acme',
      documentId: 'doc-1',
      newDocumentId: 'doc-2',
    });

    const changes = await eventually(
      () => changesOf('alice'),
      (list) => list.length >= 6,
    );
    const key = service.apiKey;
    const migration = `migration:${migrationId}`;
    expect(summary(changes).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      [
        { documentId: 'doc-1', cause: 'set', changedBy: key, before: {}, after: { inbox: 'NONE', email: 'ALL' } },
        { documentId: null, cause: 'set', changedBy: key, before: {}, after: { slack: 'ALL' } },
        { documentId: null, cause: 'reset', changedBy: key, before: { slack: 'ALL' }, after: {} },
        {
          documentId: 'doc-1',
          cause: 'reset',
          changedBy: key,
          before: { inbox: 'NONE', email: 'ALL' },
          after: { email: 'ALL' },
        },
        { documentId: 'doc-2', cause: 'migration', changedBy: migration, before: {}, after: { email: 'ALL' } },
        { documentId: 'doc-1', cause: 'migration', changedBy: migration, before: { email: 'ALL' }, after: {} },
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    // Newest first.
    const times = changes.map((change) => change.changedAt);
    expect([...times].sort().reverse()).toEqual(times);
    // Nothing more arrives later (no duplicate from a retry, no record of a delete's stamp).
    await service.streams?.caughtUp();
    expect(await changesOf('alice')).toHaveLength(6);

    // The route answers the same, by filter and page by page.
    const read = async (data: Record<string, unknown>) => {
      const { status, body } = await service.call('/v2/notifications/config/history', data);
      expect(status).toBe(200);
      return body.result?.data as { changes: HistoryChange[]; nextCursor?: string };
    };
    const all = await read({ organizationId: 'acme', userId: 'alice' });
    expect(all.changes).toEqual(changes);
    expect(all.nextCursor).toBeUndefined();
    expect(summary((await read({ organizationId: 'acme', userId: 'alice', documentId: null })).changes)).toEqual([
      { documentId: null, cause: 'reset', changedBy: key, before: { slack: 'ALL' }, after: {} },
      { documentId: null, cause: 'set', changedBy: key, before: {}, after: { slack: 'ALL' } },
    ]);
    expect(summary((await read({ organizationId: 'acme', userId: 'alice', documentId: 'doc-2' })).changes)).toEqual([
      { documentId: 'doc-2', cause: 'migration', changedBy: migration, before: {}, after: { email: 'ALL' } },
    ]);
    const pages: HistoryChange[][] = [];
    let cursor: string | undefined;
    do {
      const page = await read({ organizationId: 'acme', userId: 'alice', limit: 4, ...(cursor ? { cursor } : {}) });
      pages.push(page.changes);
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.flat()).toEqual(changes);
    expect(pages[0]).toHaveLength(4);

    const events = await eventually(
      () => eventLines(join(dataDir, 'events.jsonl')),
      (lines) => lines.some((line) => line['detail-type'] === 'Document Migration Completed'),
    );
    const changed = events.filter((line) => line['detail-type'] === 'Notification Config Changed');
    expect(new Set(changed.map((line) => line.detail.id))).toEqual(new Set(changes.map((change) => change.changeId)));
    expect(changed.every((line) => line.source === 'notification-preferences')).toBe(true);
    expect(events.find((line) => line['detail-type'] === 'Document Migration Completed')?.detail).toMatchObject({
      id: `migration:${migrationId}:completed`,
      migrationId,
      status: 'completed',
      moved: 1,
    });
  }, 60_000);

  test('a category layer is a change of its own, filtered by category; a policy set is announced once per version', async () => {
    const ok = async (path: string, data: unknown) => {
      const { status, body } = await service.call(path, data);
      expect({ path, status, body: status === 200 ? 'ok' : body }).toEqual({ path, status: 200, body: 'ok' });
    };
    await ok('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['bea'], config: { inbox: 'MINE' } });
    await ok('/v2/notifications/config/set', {
      organizationId: 'acme',
      userIds: ['bea'],
      category: 'comment',
      config: { email: 'NONE' },
    });
    await ok('/v2/organizations/policy/set', {
      organizationId: 'acme',
      policy: { categories: { comment: { label: 'Comments' } } },
    });
    const read = async (data: Record<string, unknown>) =>
      (await service.call('/v2/notifications/config/history', data)).body.result?.data as { changes: HistoryChange[] };
    const comment = await eventually(
      () => read({ organizationId: 'acme', userId: 'bea', category: 'comment' }),
      (page) => page.changes.length > 0,
    );
    expect(comment.changes.map(({ category, cause, before, after }) => ({ category, cause, before, after }))).toEqual([
      { category: 'comment', cause: 'set', before: {}, after: { email: 'NONE' } },
    ]);
    const all = await read({ organizationId: 'acme', userId: 'bea', category: null });
    expect(all.changes.map((change) => [change.category, change.after])).toEqual([[null, { inbox: 'MINE' }]]);

    const events = await eventually(
      () => eventLines(join(dataDir, 'events.jsonl')),
      (lines) => lines.some((line) => line['detail-type'] === 'Notification Policy Changed'),
    );
    const policy = events.filter((line) => line['detail-type'] === 'Notification Policy Changed');
    expect(policy).toHaveLength(1);
    expect(policy[0]?.detail).toMatchObject({
      id: 'policy:acme:1',
      organizationId: 'acme',
      version: 1,
      before: {},
      after: { categories: { comment: { label: 'Comments' } } },
    });
    const layerEvent = events.find(
      (line) => line['detail-type'] === 'Notification Config Changed' && line.detail.category === 'comment',
    );
    expect(layerEvent?.detail).toMatchObject({ userId: 'bea', category: 'comment', after: { email: 'NONE' } });
  }, 60_000);
});

describe('npm start killed mid-stream', () => {
  // On a data directory DynamoDB Local syncs every commit: a set it writes well within its deadline.
  const USERS = Array.from({ length: 200 }, (_, i) => `user-${String(i).padStart(3, '0')}`);
  let dataDir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'history-crash-'));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  // local/main.ts in one process, so that SIGKILL stops it all.
  const start = () => startNpmStartProcess(dataDir, children);
  const exited = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });

  /** Every item of the history table of the running server. */
  const historyItems = async () => {
    const running = await readRunningServer(dataDir);
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: running?.dynamoEndpoint,
        region: 'local',
        credentials: await readAwsCredential(dataPaths(dataDir).awsCredential),
      }),
    );
    const items: Record<string, unknown>[] = [];
    for await (const page of paginateScan({ client }, { TableName: TABLES.history.localName })) {
      items.push(...(page.Items ?? []));
    }
    client.destroy();
    return items;
  };

  test('after a SIGKILL while the stream is being read, the restart records every change exactly once', async () => {
    const first = await start();
    const response = await fetch(`${first.baseUrl}/v2/notifications/config/set`, {
      method: 'POST',
      headers: first.headers,
      body: JSON.stringify({
        data: { organizationId: 'acme', userIds: USERS, documentIds: ['doc-1'], config: { email: 'NONE' } },
      }),
    });
    expect(response.status).toBe(200);
    // Killed once the publisher has begun: some changes are recorded, usually not all.
    const events = join(dataDir, 'events.jsonl');
    await eventually(
      () => eventLines(events),
      (lines) => lines.length > 0,
    );
    first.process.kill('SIGKILL');
    await exited(first.process);
    while ((await dbPathHolder(dataPaths(dataDir).dynamo)) !== undefined) await sleep(50);

    const second = await start();
    const items = await eventually(historyItems, (list) => list.length >= USERS.length);
    // Let the stream settle: a duplicate would show up now.
    await sleep(2_000);
    const settled = await historyItems();
    expect(settled).toHaveLength(USERS.length);
    expect(new Set(settled.map((item) => item.userId))).toEqual(new Set(USERS));
    expect(new Set(settled.map((item) => item.changeId)).size).toBe(USERS.length);
    expect(items.length).toBe(USERS.length);
    // Events are at least once: every change announced, a repeat keeps its id. The restarted
    // publisher announces what it records, a little after (a busy machine: a little more).
    const recorded = new Set(settled.map((item) => item.changeId as string));
    const ids = async () => new Set((await eventLines(events)).map((line) => line.detail.id));
    const announced = await eventually(ids, (seen) => [...recorded].every((id) => seen.has(id)), 60_000);
    expect(announced).toEqual(recorded);

    second.process.kill('SIGTERM');
    await exited(second.process);
  }, 180_000);
});
