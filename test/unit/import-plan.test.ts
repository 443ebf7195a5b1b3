import { describe, expect, test } from '@jest/globals';
import { judgeChanges } from '#shared/imports/plan.js';
import type { ImportChange } from '#shared/imports/rows.js';
import type { StoredEntry } from '#shared/preferences/model.js';

// What each change of an import page does to the stored entries: a write, nothing (the value is
// stored already), or applied already by an earlier run of the same page (its write time).

const key = { organizationId: 'org-1', userId: 'u1', documentId: null };
const evidence = { via: 'import' as const, importId: 'imp-1' };
const change = (fields: Partial<ImportChange>): ImportChange => ({ key, evidence, ...fields });
const OLD = '2026-01-01T00:00:00.000Z';
const STAMP = '2026-06-01T10:00:00.000Z';

const stored = (fields: Partial<StoredEntry>): StoredEntry => ({
  ...key,
  scope: 'organization',
  config: {},
  updatedAt: OLD,
  updatedBy: 'key-1',
  version: 1,
  ...fields,
});

describe('against what is stored', () => {
  const entry = stored({
    config: { email: 'NONE', inbox: 'ALL' },
    channelAt: { email: OLD, inbox: OLD },
    categories: { news: { config: { slack: 'MINE' }, channelAt: { slack: OLD } } },
    schedule: { timeZone: 'Europe/Berlin' },
    scheduleAt: OLD,
  });

  test('values already stored are unchanged; any value that differs is a write', () => {
    expect(
      judgeChanges(
        [
          change({ config: { email: 'NONE' } }),
          change({ config: { email: 'NONE', inbox: 'NONE' } }),
          change({ category: 'news', config: { slack: 'MINE' } }),
          change({ category: 'news', config: { email: 'NONE' } }),
          change({ category: 'promo', config: { email: 'NONE' } }),
          change({ schedule: { timeZone: 'Europe/Berlin' } }),
          change({ schedule: { timeZone: 'UTC' } }),
          change({ schedule: null }),
        ],
        [entry],
        undefined,
      ),
    ).toEqual(['unchanged', 'write', 'unchanged', 'write', 'write', 'unchanged', 'write', 'write']);
  });

  test('an entry not stored: every change is a write, but removing a schedule there is none to remove', () => {
    expect(judgeChanges([change({ config: { email: 'ALL' } })], [], undefined)).toEqual(['write']);
    expect(judgeChanges([change({ schedule: null })], [], undefined)).toEqual(['unchanged']);
  });

  test('a schedule stored with its fields in another order is the same schedule', () => {
    const schedule = {
      timeZone: 'UTC',
      quietHours: [{ days: ['mon' as const], start: '22:00', end: '07:00', channels: ['email' as const] }],
    };
    const reordered = JSON.parse(
      '{"quietHours":[{"channels":["email"],"end":"07:00","start":"22:00","days":["mon"]}],"timeZone":"UTC"}',
    );
    expect(judgeChanges([change({ schedule })], [stored({ schedule: reordered })], undefined)).toEqual(['unchanged']);
  });

  test('another user’s or document’s entry is not this one', () => {
    const other = stored({ userId: 'u2', config: { email: 'NONE' } });
    expect(judgeChanges([change({ config: { email: 'NONE' } })], [other], undefined)).toEqual(['write']);
  });
});

describe('in the file’s order within a page', () => {
  test('two lines on one channel: each judged against what the earlier left', () => {
    const entry = stored({ config: { email: 'NONE' }, channelAt: { email: OLD } });
    expect(
      judgeChanges(
        [
          change({ config: { email: 'ALL' } }),
          change({ config: { email: 'ALL' } }),
          change({ config: { email: 'NONE' } }),
          change({ schedule: { timeZone: 'UTC' } }),
          change({ schedule: { timeZone: 'UTC' } }),
        ],
        [entry],
        undefined,
      ),
    ).toEqual(['write', 'unchanged', 'write', 'write', 'unchanged']);
  });
});

describe('a page run again with the write time it saved before writing', () => {
  test('values stored with that time were written by the run that died: applied, not written again', () => {
    const entry = stored({
      config: { email: 'NONE', inbox: 'ALL' },
      channelAt: { email: STAMP, inbox: OLD },
      categories: { news: { config: { slack: 'NONE' }, channelAt: { slack: STAMP } } },
      schedule: { timeZone: 'UTC' },
      scheduleAt: STAMP,
    });
    expect(
      judgeChanges(
        [
          change({ config: { email: 'NONE' } }),
          change({ config: { inbox: 'ALL' } }),
          change({ config: { email: 'NONE', inbox: 'ALL' } }),
          change({ category: 'news', config: { slack: 'NONE' } }),
          change({ schedule: { timeZone: 'UTC' } }),
          change({ config: { slack: 'ALL' } }),
        ],
        [entry],
        STAMP,
      ),
    ).toEqual(['applied', 'unchanged', 'unchanged', 'applied', 'applied', 'write']);
  });

  test('without the time (a dry run, a page’s first run) the same values are unchanged', () => {
    const entry = stored({ config: { email: 'NONE' }, channelAt: { email: STAMP } });
    expect(judgeChanges([change({ config: { email: 'NONE' } })], [entry], undefined)).toEqual(['unchanged']);
  });

  test('a later line of the page that the run had not reached yet is still a write', () => {
    // The run wrote line 1 (email NONE with the page's time) and died before line 2.
    const entry = stored({ config: { email: 'NONE' }, channelAt: { email: STAMP } });
    expect(
      judgeChanges([change({ config: { email: 'NONE' } }), change({ config: { email: 'ALL' } })], [entry], STAMP),
    ).toEqual(['applied', 'write']);
  });
});
