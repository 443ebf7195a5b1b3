import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, jest, test } from '@jest/globals';
import { type ChangeAttribution, linkActor } from '#shared/preferences/change-attribution.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { setConfig } from '#shared/preferences/service.js';
import { DST, h, ORG, SRC, sourceEntries, useMigrationHarness, user } from './migration-fixtures.js';

const dynamo = useMigrationHarness();

const keysOf = ({ organizationId, userId, documentId }: EntryKey): EntryKey => ({ organizationId, userId, documentId });

const item = async (key: EntryKey) =>
  (await dynamo.doc.send(new GetCommand({ TableName: dynamo.tables.config, Key: entryTableKey(key) }))).Item;

const attributionOf = (change: ChangeAttribution) => ({
  changeCause: change.cause,
  changedBy: change.changedBy,
  changedAt: change.changedAt,
});
const attributionOfPlain = (change: ChangeAttribution) => ({
  cause: change.cause,
  changedBy: change.changedBy,
  changedAt: change.changedAt,
});

const attribution = (stored: Record<string, unknown> | undefined) => ({
  cause: stored?.changeCause,
  changedBy: stored?.changedBy,
  changedAt: stored?.changedAt,
});

describe('every write of an entry says who made it and why', () => {
  test('set and reset: the api key and the request time', async () => {
    const key = { organizationId: ORG, userId: 'alice', documentId: 'doc-1' };
    await h.preferences.setChannels(
      key,
      { inbox: 'NONE' },
      { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_set' },
    );
    expect(attribution(await item(key))).toEqual({
      cause: 'set',
      changedBy: 'ak_set',
      changedAt: '2026-01-01T00:00:00.000Z',
    });
    await h.preferences.resetChannels(key, ['inbox'], { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak_reset' });
    expect(attribution(await item(key))).toEqual({
      cause: 'reset',
      changedBy: 'ak_reset',
      changedAt: '2026-01-02T00:00:00.000Z',
    });
  });

  test('a change from a link in an email: cause link, the link key as the actor, for a set and a reset', async () => {
    const key = { organizationId: ORG, userId: 'bob', documentId: null };
    await setConfig(
      { store: h.preferences, now: () => new Date('2026-01-03T00:00:00.000Z'), cause: 'link' },
      { organizationId: ORG, userIds: ['bob'], config: { email: 'NONE' } },
      linkActor('k1'),
    );
    expect(attribution(await item(key))).toEqual({
      cause: 'link',
      changedBy: 'link:k1',
      changedAt: '2026-01-03T00:00:00.000Z',
    });
    await resetConfig(
      { store: h.preferences, now: () => new Date('2026-01-04T00:00:00.000Z'), cause: 'link' },
      { organizationId: ORG, userIds: ['bob'], channels: ['inbox'] },
      linkActor('k1'),
    );
    expect(attribution(await item(key))).toEqual({
      cause: 'link',
      changedBy: 'link:k1',
      changedAt: '2026-01-04T00:00:00.000Z',
    });
    // Without the option, the same calls are a set and a reset.
    await setConfig(
      { store: h.preferences },
      { organizationId: ORG, userIds: ['bob'], config: { slack: 'NONE' } },
      'ak_x',
    );
    expect(attribution(await item(key)).cause).toBe('set');
  });

  test('a migration: the copies it writes name it', async () => {
    await h.seed(sourceEntries(2));
    const id = await h.start(ORG, SRC, DST);
    expect(await h.deliver(id)).toBe('completed');
    const copy = await item({ organizationId: ORG, userId: user(0), documentId: DST });
    expect(copy).toMatchObject({ changeCause: 'migration', changedBy: `migration:${id}`, updatedBy: 'ak_seed' });
  });

  test('a migration deletes a source it moved only under its own stamp, which a write in between replaces', async () => {
    const key = { organizationId: ORG, userId: 'bob', documentId: SRC };
    await h.preferences.setChannels(
      key,
      { email: 'ALL' },
      { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_1' },
    );
    const change: ChangeAttribution = {
      cause: 'migration',
      changedBy: 'migration:m1',
      changedAt: '2026-01-03T00:00:00.000Z',
    };
    const [entry] = await h.store.getMarkedEntries([key]);
    const unchanged = { version: entry!.version, updatedAt: entry!.updatedAt };

    // Not stamped: not deleted.
    expect(await h.store.deleteEntryIf(key, unchanged, change)).toBe(false);
    // Stamped: the entry's last write is the migration's, which the stream's record of the delete shows.
    expect(await h.store.stampForDelete([{ ...key, ...unchanged }], change)).toEqual([{ ...key, ...unchanged }]);
    expect(await item(key)).toMatchObject({ email: 'ALL', version: entry!.version, ...attributionOf(change) });
    expect(await h.store.deleteEntryIf(key, unchanged, change)).toBe(true);
    expect(await item(key)).toBeUndefined();

    // A write between the stamp and the delete: its own attribution stays, and the entry too.
    await h.preferences.setChannels(
      key,
      { email: 'MINE' },
      { updatedAt: '2026-01-04T00:00:00.000Z', updatedBy: 'ak_2' },
    );
    const [again] = await h.store.getMarkedEntries([key]);
    const now = { version: again!.version, updatedAt: again!.updatedAt };
    expect(await h.store.stampForDelete([{ ...key, ...now }], change)).toHaveLength(1);
    await h.preferences.setChannels(
      key,
      { inbox: 'NONE' },
      { updatedAt: '2026-01-05T00:00:00.000Z', updatedBy: 'ak_3' },
    );
    expect(await h.store.deleteEntryIf(key, now, change)).toBe(false);
    expect(attribution(await item(key))).toEqual({
      cause: 'set',
      changedBy: 'ak_3',
      changedAt: '2026-01-05T00:00:00.000Z',
    });
  });

  test('deleting a page in PartiQL batches: only entries unchanged and stamped go, over several batches', async () => {
    const change: ChangeAttribution = {
      cause: 'migration',
      changedBy: 'migration:m2',
      changedAt: '2026-01-03T00:00:00.000Z',
    };
    // 30 entries: two batches (25 statements a call).
    const keys = Array.from({ length: 30 }, (_, i) => ({ organizationId: ORG, userId: `u${i}`, documentId: SRC }));
    for (const key of keys) {
      await h.preferences.setChannels(
        key,
        { email: 'ALL' },
        { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak_1' },
      );
    }
    const read = await h.store.getMarkedEntries(keys);
    const entries = read.map((entry) => ({ ...keysOf(entry), version: entry.version, updatedAt: entry.updatedAt }));
    // All stamped but u1; then u2 changed (a later write), u3 deleted by someone else, u29 changed too.
    const stamped = entries.filter((entry) => entry.userId !== 'u1');
    expect(await h.store.stampForDelete(stamped, change)).toHaveLength(29);
    for (const userId of ['u2', 'u29']) {
      await h.preferences.setChannels(
        { organizationId: ORG, userId, documentId: SRC },
        { inbox: 'NONE' },
        { updatedAt: '2026-01-04T00:00:00.000Z', updatedBy: 'ak_2' },
      );
    }
    await dynamo.doc.send(
      new DeleteCommand({
        TableName: dynamo.tables.config,
        Key: entryTableKey({ organizationId: ORG, userId: 'u3', documentId: SRC }),
      }),
    );

    const singles = jest.spyOn(h.store, 'deleteEntryIf');
    const deleted = await h.store.deleteEntriesIf(entries, change);
    // Every statement answered in its batch: a failed condition is no reason to try again alone.
    expect(singles).not.toHaveBeenCalled();
    const kept = ['u1', 'u2', 'u3', 'u29'];
    expect(deleted.map((entry) => entry.userId).sort()).toEqual(
      keys
        .map((key) => key.userId)
        .filter((userId) => !kept.includes(userId))
        .sort(),
    );
    for (const key of keys) {
      const stored = await item(key);
      expect({ userId: key.userId, stored: stored !== undefined }).toEqual({
        userId: key.userId,
        stored: ['u1', 'u2', 'u29'].includes(key.userId),
      });
    }
    // The changed entries keep their own writes.
    expect(await item({ organizationId: ORG, userId: 'u2', documentId: SRC })).toMatchObject({ inbox: 'NONE' });
  });

  test('stamping a page: an entry changed since it was read is left unstamped, the others are stamped', async () => {
    const keys = [0, 1, 2].map((i) => ({ organizationId: ORG, userId: user(i), documentId: SRC }));
    for (const key of keys) {
      await h.preferences.setChannels(
        key,
        { slack: 'ALL' },
        { updatedAt: '2026-01-01T00:00:00.000Z', updatedBy: 'ak' },
      );
    }
    const read = await h.store.getMarkedEntries(keys);
    await h.preferences.setChannels(
      keys[1]!,
      { slack: 'NONE' },
      { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak' },
    );
    const change: ChangeAttribution = {
      cause: 'erasure',
      changedBy: 'erasure:e1',
      changedAt: '2026-01-03T00:00:00.000Z',
    };
    const stamped = await h.store.stampForDelete(read, change);
    expect(stamped.map((key) => key.userId).sort()).toEqual([user(0), user(2)]);
    expect(attribution(await item(keys[1]!))).toMatchObject({ cause: 'set' });
    expect(attribution(await item(keys[2]!))).toEqual(attributionOfPlain(change));
  });
});
