import { describe, expect, test } from '@jest/globals';
import { changesOf } from '#shared/history/from-stream.js';
import { entryItem, streamRecord } from '../support/stream-records.js';

const CONFIG = 'config';

describe('the change a stream record of the config table records', () => {
  test('a set that creates an entry: before {}, after its channels, who and why from the item', () => {
    const record = streamRecord(CONFIG, 'INSERT', { new: entryItem({ inbox: 'NONE' }) }, '42');
    expect(changesOf(record)).toEqual([
      {
        sequenceNumber: '42',
        change: {
          changeId: 'event-42',
          organizationId: 'acme',
          userId: 'alice',
          documentId: 'doc-1',
          scope: 'document',
          category: null,
          cause: 'set',
          changedAt: '2026-01-01T00:00:00.000Z',
          changedBy: 'ak_1',
          // An item written before evidence existed: what its cause implies.
          evidence: { via: 'api' },
          before: {},
          after: { inbox: 'NONE' },
        },
      },
    ]);
  });

  test('a reset that empties an entry into a tombstone: after {}', () => {
    const record = streamRecord(CONFIG, 'MODIFY', {
      old: entryItem({ inbox: 'NONE', email: 'ALL' }),
      new: entryItem({ changeCause: 'reset', changedBy: 'ak_2', changedAt: '2026-01-02T00:00:00.000Z' }),
    });
    expect(changesOf(record)[0]?.change).toMatchObject({
      cause: 'reset',
      changedBy: 'ak_2',
      changedAt: '2026-01-02T00:00:00.000Z',
      before: { inbox: 'NONE', email: 'ALL' },
      after: {},
    });
  });

  test('a set over a tombstone: before {}', () => {
    const record = streamRecord(CONFIG, 'MODIFY', {
      old: entryItem({ tombstoneExpiresAt: 1_800_000_000 }),
      new: entryItem({ slack: 'MINE' }),
    });
    expect(changesOf(record)[0]?.change).toMatchObject({ before: {}, after: { slack: 'MINE' } });
  });

  test('an organization-level entry: documentId null, scope organization', () => {
    const record = streamRecord(CONFIG, 'INSERT', {
      new: entryItem({ pk: 'ORG#acme', documentId: undefined, scope: 'organization', email: 'MINE' }),
    });
    expect(changesOf(record)[0]?.change).toMatchObject({ documentId: null, scope: 'organization' });
  });

  test("a migration's delete of a source: the stamp on the deleted item names the migration", () => {
    const record = streamRecord(CONFIG, 'REMOVE', {
      old: entryItem({
        inbox: 'ALL',
        changeCause: 'migration',
        changedBy: 'migration:m1',
        changedAt: '2026-01-03T00:00:00.000Z',
      }),
    });
    expect(changesOf(record)[0]?.change).toMatchObject({
      cause: 'migration',
      changedBy: 'migration:m1',
      before: { inbox: 'ALL' },
      after: {},
    });
  });

  test('records that change no channel value record nothing', () => {
    const stamp = { changeCause: 'migration', changedBy: 'migration:m1', changedAt: '2026-01-03T00:00:00.000Z' };
    // A delete's stamp.
    expect(
      changesOf(
        streamRecord(CONFIG, 'MODIFY', {
          old: entryItem({ inbox: 'ALL' }),
          new: entryItem({ inbox: 'ALL', ...stamp }),
        }),
      ),
    ).toEqual([]);
    // The same value set again.
    expect(
      changesOf(
        streamRecord(CONFIG, 'MODIFY', {
          old: entryItem({ inbox: 'ALL' }),
          new: entryItem({ inbox: 'ALL', version: 2, updatedAt: '2026-01-05T00:00:00.000Z' }),
        }),
      ),
    ).toEqual([]);
    // A tombstone's expiry, or a tombstone given its expiry time.
    expect(changesOf(streamRecord(CONFIG, 'REMOVE', { old: entryItem({ tombstoneExpiresAt: 1 }) }))).toEqual([]);
    expect(
      changesOf(streamRecord(CONFIG, 'MODIFY', { old: entryItem(), new: entryItem({ tombstoneExpiresAt: 1 }) })),
    ).toEqual([]);
  });

  test('an item written before attribution existed counts as a set by its updatedBy at its updatedAt', () => {
    const { changeCause: _c, changedBy: _b, changedAt: _a, ...legacy } = entryItem({ email: 'NONE' });
    expect(changesOf(streamRecord(CONFIG, 'INSERT', { new: legacy }))[0]?.change).toMatchObject({
      cause: 'set',
      changedBy: 'ak_1',
      changedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  test('the evidence written with the change travels with it; a change stored without one gets what its cause implies', () => {
    const evidence = { via: 'page', keyId: 'k1', issuedAt: '2026-01-01T00:00:00.000Z', pageVersion: 'abc' };
    const record = streamRecord(CONFIG, 'MODIFY', {
      old: entryItem({ inbox: 'ALL' }),
      new: entryItem({
        inbox: 'NONE',
        changeCause: 'link',
        changedBy: 'link:k1',
        changeEvidence: JSON.stringify(evidence),
      }),
    });
    expect(changesOf(record)[0]?.change.evidence).toEqual(evidence);
    const implied = (changeCause: string, changedBy: string) =>
      changesOf(streamRecord(CONFIG, 'REMOVE', { old: entryItem({ inbox: 'ALL', changeCause, changedBy }) }))[0]?.change
        .evidence;
    expect(implied('migration', 'migration:m1')).toEqual({ via: 'migration', migrationId: 'm1' });
    expect(implied('erasure', 'erasure:e1')).toEqual({ via: 'erasure', erasureId: 'e1' });
    expect(implied('set', 'ak_1')).toEqual({ via: 'api' });
  });

  test('an item that is no config entry records nothing', () => {
    expect(changesOf(streamRecord(CONFIG, 'INSERT', { new: { pk: 'x', sk: 'y', inbox: 'ALL' } }))).toEqual([]);
  });

  test('one change per layer that changed: the all-categories layer first, then categories in id order', () => {
    const record = streamRecord(
      CONFIG,
      'MODIFY',
      {
        old: entryItem({
          inbox: 'ALL',
          'c:mention:email': 'ALL',
          'c:share:slack': 'MINE',
          categoryIds: new Set(['mention', 'share']),
        }),
        new: entryItem({
          inbox: 'NONE',
          'c:comment:email': 'NONE',
          'c:mention:email': 'ALL',
          'c:share:slack': 'MINE',
          'c:share:slackAt': '2026-01-01T00:00:00.000Z',
          categoryIds: new Set(['comment', 'mention', 'share']),
        }),
      },
      '77',
    );
    const changes = changesOf(record).map(({ change, sequenceNumber }) => ({ sequenceNumber, ...change }));
    expect(
      changes.map(({ changeId, category, before, after, sequenceNumber }) => ({
        changeId,
        category,
        before,
        after,
        sequenceNumber,
      })),
    ).toEqual([
      {
        changeId: 'event-77',
        category: null,
        before: { inbox: 'ALL' },
        after: { inbox: 'NONE' },
        sequenceNumber: '77',
      },
      { changeId: 'event-77:comment', category: 'comment', before: {}, after: { email: 'NONE' }, sequenceNumber: '77' },
    ]);
  });

  test('an erasure deleting an entry with category layers: a change per layer that held a value, no erased value published', () => {
    const record = streamRecord(CONFIG, 'REMOVE', {
      old: entryItem({
        'c:security:inbox': 'NONE',
        'c:constructor:email': 'MINE',
        changeCause: 'erasure',
        changedBy: 'erasure:e1',
      }),
    });
    expect(changesOf(record).map(({ change }) => [change.category, change.cause, change.before, change.after])).toEqual(
      [
        // An erasure publishes no erased value again: before is null.
        ['constructor', 'erasure', null, {}],
        ['security', 'erasure', null, {}],
      ],
    );
  });

  test("a schedule's change: scope schedule, documentId and category null, before and after the schedules", () => {
    const schedule = { timeZone: 'Europe/Berlin', snoozeUntil: '2026-12-01T00:00:00.000Z' };
    const org = { pk: 'ORG#acme', documentId: undefined, scope: 'organization' };
    const set = streamRecord(
      CONFIG,
      'MODIFY',
      {
        old: entryItem({ ...org, inbox: 'NONE' }),
        new: entryItem({
          ...org,
          inbox: 'NONE',
          schedule: JSON.stringify(schedule),
          scheduleAt: '2026-01-01T00:00:00.000Z',
        }),
      },
      '90',
    );
    expect(changesOf(set).map(({ change }) => change)).toEqual([
      expect.objectContaining({
        changeId: 'event-90#schedule',
        scope: 'schedule',
        documentId: null,
        category: null,
        cause: 'set',
        before: null,
        after: schedule,
      }),
    ]);
    // The same schedule with its keys in another order is no change; an erasure's delete is one.
    const reordered = { snoozeUntil: schedule.snoozeUntil, timeZone: schedule.timeZone };
    expect(
      changesOf(
        streamRecord(CONFIG, 'MODIFY', {
          old: entryItem({ ...org, schedule }),
          new: entryItem({ ...org, schedule: reordered }),
        }),
      ),
    ).toEqual([]);
    const erased = changesOf(
      streamRecord(CONFIG, 'REMOVE', {
        old: entryItem({
          ...org,
          schedule: JSON.stringify(schedule),
          email: 'ALL',
          changeCause: 'erasure',
          changedBy: 'erasure:e1',
        }),
      }),
    );
    expect(erased.map(({ change }) => [change.scope, change.cause, change.before, change.after])).toEqual([
      ['organization', 'erasure', null, {}],
      ['schedule', 'erasure', null, null],
    ]);
  });
});
