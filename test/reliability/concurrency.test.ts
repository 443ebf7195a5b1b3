import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { itemToEntry } from '#shared/preferences/entry-item.js';
import { documentPartition } from '#shared/preferences/keys.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { gatedConsumer, PATHS, waitForMigration } from './support.js';

// Races over HTTP against the local server, the SQS twin and the real consumer. Final states
// are read from the table and checked entry by entry.
const ORG = 'org-c';
let service: LocalService;
const gate = gatedConsumer();

beforeAll(async () => {
  service = await startLocalService({ consumer: gate.consumer, queue: { retryDelayMs: 300, maxReceiveCount: 10 } });
});
afterAll(async () => {
  gate.open();
  await service?.close();
});

const VALUES = ['ALL', 'MINE', 'NONE'] as const;
const CHANNELS = ['inbox', 'email', 'slack'] as const;
const users = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

/** Every stored document-level entry of a document, by user. */
const documentEntries = async (documentId: string): Promise<Record<string, ChannelConfig>> => {
  const result: Record<string, ChannelConfig> = {};
  let start: Record<string, unknown> | undefined;
  do {
    const page = await service.doc.send(
      new QueryCommand({
        TableName: service.tables.config,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': documentPartition(ORG, documentId) },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) result[item.sk as string] = itemToEntry(item).config;
    start = page.LastEvaluatedKey;
  } while (start);
  return result;
};

const set = async (userIds: string[], documentIds: string[], config: ChannelConfig) => {
  const response = await service.call(PATHS.set, { organizationId: ORG, userIds, documentIds, config });
  if (response.status !== 200) throw new Error(`set: ${response.status} ${response.text}`);
};

const migrate = (documentId: string, newDocumentId: string) =>
  service.call(PATHS.migrate, { organizationId: ORG, documentId, newDocumentId });

test('concurrent sets of different channels on the same 30 entries: every channel of every entry keeps its own write', async () => {
  const ids = users('ch', 10);
  const docs = ['ch-1', 'ch-2', 'ch-3'];
  for (let round = 0; round < 4; round++) {
    const expected = Object.fromEntries(
      CHANNELS.map((channel, i) => [channel, VALUES[(round + i) % 3]]),
    ) as ChannelConfig;
    // Each channel written by two requests at once (same value), all six requests together.
    await Promise.all(
      CHANNELS.flatMap((channel) => [1, 2].map(() => set(ids, docs, { [channel]: expected[channel] }))),
    );
    for (const doc of docs) {
      const entries = await documentEntries(doc);
      expect(Object.keys(entries).sort()).toEqual(ids);
      for (const user of ids)
        expect({ round, doc, user, config: entries[user] }).toEqual({ round, doc, user, config: expected });
    }
  }
}, 120_000);

test('config writes racing a migration: the last write of every (user, channel) is found, nothing is lost, counts exact', async () => {
  const ids = users('race', 200);
  await set(ids, ['race-src'], { inbox: 'ALL' });
  const last = new Map<string, string>(ids.map((user) => [`${user} inbox`, 'ALL']));
  let writes = 0;
  // 8 writers, each with its own users (so the order of writes to one entry is known), write
  // one channel of one user at a time to the source document while the migration runs: a
  // bounded burst (under writes without end the source would never be empty to finish on).
  const writer = async (w: number, count: number) => {
    const mine = ids.filter((_, i) => i % 8 === w);
    for (let n = 0; n < count; n++) {
      const user = mine[n % mine.length] as string;
      const channel = CHANNELS[(n + w) % 3] as (typeof CHANNELS)[number];
      const value = VALUES[(n * 7 + w) % 3] as string;
      await set([user], ['race-src'], { [channel]: value });
      last.set(`${user} ${channel}`, value);
      writes += 1;
    }
  };
  const writers = Array.from({ length: 8 }, (_, w) => writer(w, 40));
  await sleep(50);
  const started = await migrate('race-src', 'race-dst');
  expect(started.status).toBe(200);
  const { migrationId } = started.body.result!.data as { migrationId: string };
  await Promise.all(writers);
  const status = await waitForMigration(service, undefined, ORG, migrationId);
  // Writes after completion stay under the old identifier.
  await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w, 5)));

  expect(status).toMatchObject({ status: 'completed', moved: 200, skipped: 0 });
  expect(writes).toBe(8 * 45);
  const source = await documentEntries('race-src');
  const target = await documentEntries('race-dst');
  expect(Object.keys(target).sort()).toEqual(ids);
  // A channel written after the final pass is in the source; every other one in the target.
  for (const [key, value] of last) {
    const [user, channel] = key.split(' ') as [string, (typeof CHANNELS)[number]];
    const found = source[user]?.[channel] ?? target[user]?.[channel];
    expect({ key, found }).toEqual({ key, found: value });
  }
  // A bound for a busy machine: the assertions are on the stored state, not on time.
}, 120_000);

describe('duplicates', () => {
  test('the same migration message delivered twice at once (three copies): one run does the work, counts exact, nothing dead-lettered', async () => {
    const ids = users('dup', 150);
    await set(ids, ['dup-src'], { email: 'MINE' });
    gate.close();
    const started = await migrate('dup-src', 'dup-dst');
    const { migrationId } = started.body.result!.data as { migrationId: string };
    for (let i = 0; i < 2; i++) service.queue.send({ body: JSON.stringify({ migrationId }) });
    gate.open();
    const status = await waitForMigration(service, undefined, ORG, migrationId);
    await service.queue.whenIdle();
    expect(status).toMatchObject({ status: 'completed', moved: 150, skipped: 0 });
    expect(await documentEntries('dup-src')).toEqual({});
    const target = await documentEntries('dup-dst');
    expect(Object.keys(target).sort()).toEqual(ids);
    for (const user of ids) expect(target[user]).toEqual({ email: 'MINE' });
    expect(service.deadLetterQueue.list()).toEqual([]);
  });

  test('eight identical migrate calls at once: one migration id for all, one message queued', async () => {
    await set(users('same', 10), ['same-src'], { slack: 'ALL' });
    gate.close();
    const before = gate.deliveries;
    const responses = await Promise.all(Array.from({ length: 8 }, () => migrate('same-src', 'same-dst')));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    const ids = new Set(responses.map((r) => (r.body.result!.data as { migrationId: string }).migrationId));
    expect(ids.size).toBe(1);
    gate.open();
    const [migrationId] = [...ids] as [string];
    expect(await waitForMigration(service, undefined, ORG, migrationId)).toMatchObject({
      status: 'completed',
      moved: 10,
    });
    await service.queue.whenIdle();
    expect(gate.deliveries - before).toBe(1);
  });

  test('overlapping migrations at once: the winners share no document, the rest are 409 and left failed, no lock is left', async () => {
    const pairs: [string, string][] = [
      ['ov-a', 'ov-b'],
      ['ov-b', 'ov-c'],
      ['ov-c', 'ov-a'],
      ['ov-a', 'ov-d'],
      ['ov-d', 'ov-e'],
    ];
    // Closed while they start: a winner that completed before a later request took its locks
    // would free its documents, and two winners could then rightly share one.
    gate.close();
    const responses = await Promise.all(pairs.map(([from, to]) => migrate(from, to)));
    gate.open();
    const winners = pairs.filter((_, i) => responses[i]?.status === 200);
    for (const [i, response] of responses.entries()) {
      if (response.status !== 200)
        expect({ pair: pairs[i], status: response.body.error?.status }).toEqual({ pair: pairs[i], status: 'ABORTED' });
    }
    expect(winners.length).toBeGreaterThan(0);
    const documents = winners.flat();
    expect(new Set(documents).size).toBe(documents.length);
    await service.queue.whenIdle();
    const items = (await service.doc.send(new ScanCommand({ TableName: service.tables.migrations }))).Items ?? [];
    const records = items.filter(
      (item) => String(item.pk).startsWith('MIGRATION#') && String(item.documentId).startsWith('ov-'),
    );
    expect(records.filter((r) => r.status === 'completed')).toHaveLength(winners.length);
    expect(records.filter((r) => r.status !== 'completed' && r.status !== 'failed')).toEqual([]);
    expect(items.filter((item) => String(item.pk).startsWith('LOCK#'))).toEqual([]);
  });
});
