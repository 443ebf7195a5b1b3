import { describe, expect, test } from '@jest/globals';
import { decideMove, type MoveContext, type MoveDecision } from '#shared/migration/move-decision.js';
import { skippedKey } from '#shared/migration/skipped-checkpoint.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import type { MarkedEntry, MigrationMarker } from '#shared/preferences/store.js';

const MIGRATION = 'mig-1';
const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 0, minute)).toISOString();

const entry = (
  documentId: string,
  config: ChannelConfig,
  minute: number,
  version: number,
  migration?: MigrationMarker,
): MarkedEntry => ({
  organizationId: 'org-1',
  userId: 'u1',
  documentId,
  scope: 'document',
  config,
  updatedAt: at(minute),
  updatedBy: documentId === 'src' ? 'ak_source' : 'ak_target',
  version,
  ...(migration ? { migration } : {}),
});
const source = (config: ChannelConfig = { inbox: 'ALL' }, minute = 10, version = 2) =>
  entry('src', config, minute, version);
const target = (config: ChannelConfig, minute: number, version: number, migration?: MigrationMarker) =>
  entry('dst', config, minute, version, migration);
/** This migration's marker, written by run-a in page 3 at target version `version`. */
const ownMarker = (version: number): MigrationMarker => ({ migrationId: MIGRATION, run: 'run-a', page: 3, version });

/** Deciding in page 2 of run-b; run-a saved pages up to `savedA`. */
const context = (savedA = 3, checkpoint: string[] = []): MoveContext => ({
  migrationId: MIGRATION,
  newDocumentId: 'dst',
  run: 'run-b',
  page: 2,
  savedPages: { 'run-a': savedA },
  checkpoint: new Set(checkpoint),
});

/** The target written from `from`: the source's fields in the new document, the next version and a marker. */
const written = (
  from: MarkedEntry,
  config: ChannelConfig,
  version: number,
  marker: Omit<MigrationMarker, 'version'>,
  expectedVersion: number | null,
  countMoved: boolean,
): MoveDecision => ({
  action: 'write',
  entry: { ...from, documentId: 'dst', config, version, migration: { ...marker, version } },
  expectedVersion,
  countMoved,
});
const newMarker = { migrationId: MIGRATION, run: 'run-b', page: 2 };

describe('the move decision for one user', () => {
  const cases: [string, MarkedEntry, MarkedEntry | undefined, MoveContext, MoveDecision][] = [
    [
      'no target: the source is written (only if still absent), counted as moved',
      source(),
      undefined,
      context(),
      written(source(), { inbox: 'ALL' }, 1, newMarker, null, true),
    ],
    [
      'an older target: replaced by the source, its version goes on counting',
      source(),
      target({ inbox: 'NONE' }, 5, 7),
      context(),
      written(source(), { inbox: 'ALL' }, 8, newMarker, 7, true),
    ],
    [
      'an equally old target: the source wins the tie',
      source(),
      target({ inbox: 'NONE' }, 10, 1),
      context(),
      written(source(), { inbox: 'ALL' }, 2, newMarker, 1, true),
    ],
    [
      'an older target with other channels: the whole entry is replaced, its channels are not kept',
      source(),
      target({ email: 'NONE', slack: 'MINE' }, 5, 1),
      context(),
      written(source(), { inbox: 'ALL' }, 2, newMarker, 1, true),
    ],
    [
      'a strictly newer target: it stays, the source counts as skipped',
      source(),
      target({ inbox: 'NONE' }, 11, 4),
      context(),
      { action: 'skip', countSkipped: true },
    ],
    [
      'a strictly newer target, this source version already counted (in the checkpoint): skipped, not counted again',
      source(),
      target({ inbox: 'NONE' }, 11, 4),
      context(3, [skippedKey(source())]),
      { action: 'skip', countSkipped: false },
    ],
    [
      'a strictly newer target, another version of the source in the checkpoint: counted',
      source(),
      target({ inbox: 'NONE' }, 11, 4),
      context(3, [skippedKey(source({ inbox: 'ALL' }, 10, 1))]),
      { action: 'skip', countSkipped: true },
    ],
    [
      'a newer target written by another migration: skipped',
      source(),
      target({ inbox: 'NONE' }, 11, 4, { migrationId: 'mig-other', run: 'r', page: 1, version: 4 }),
      context(),
      { action: 'skip', countSkipped: true },
    ],
    [
      'a newer target this migration wrote, then changed by a user write: skipped',
      source(),
      target({ inbox: 'NONE' }, 11, 5, ownMarker(4)),
      context(),
      { action: 'skip', countSkipped: true },
    ],
    [
      "this migration's counted copy of this very entry (a redelivery): nothing to write, nothing to count",
      source(),
      target({ inbox: 'ALL' }, 10, 4, ownMarker(4)),
      context(),
      { action: 'keep' },
    ],
    [
      "this migration's counted copy, the source written again at the same time with other channels: rewritten, not counted twice",
      source({ email: 'NONE' }),
      target({ inbox: 'ALL' }, 10, 4, ownMarker(4)),
      context(),
      written(
        source({ email: 'NONE' }),
        { inbox: 'ALL', email: 'NONE' },
        5,
        { migrationId: MIGRATION, run: 'run-a', page: 3 },
        4,
        false,
      ),
    ],
    [
      "this migration's copy from a page not saved yet (a crash before the save): rewritten and counted now",
      source(),
      target({ inbox: 'ALL' }, 10, 4, ownMarker(4)),
      context(2),
      written(source(), { inbox: 'ALL' }, 5, newMarker, 4, true),
    ],
    [
      "this migration's counted copy, the source written again since: its channels on top, the old marker kept, not counted twice",
      source({ inbox: 'ALL' }, 12),
      target({ inbox: 'NONE', email: 'MINE' }, 10, 4, ownMarker(4)),
      context(),
      written(
        source({ inbox: 'ALL' }, 12),
        { inbox: 'ALL', email: 'MINE' },
        5,
        { migrationId: MIGRATION, run: 'run-a', page: 3 },
        4,
        false,
      ),
    ],
    [
      "this migration's own copy is never skipped, even when newer than the source",
      source(),
      target({ slack: 'MINE' }, 30, 4, ownMarker(4)),
      context(),
      written(
        source(),
        { slack: 'MINE', inbox: 'ALL' },
        5,
        { migrationId: MIGRATION, run: 'run-a', page: 3 },
        4,
        false,
      ),
    ],
  ];

  test.each(cases)('%s', (_name, sourceEntry, targetEntry, moveContext, expected) => {
    expect(decideMove(sourceEntry, targetEntry, moveContext)).toEqual(expected);
  });
});

/** An entry with per-channel write times, as config/set and config/reset store them. */
const timed = (e: MarkedEntry, channelAt: MarkedEntry['channelAt']): MarkedEntry => ({ ...e, channelAt });
const keptMarker = { migrationId: MIGRATION, run: 'run-a', page: 3 };

describe('the move decision channel by channel, with resets and tombstones', () => {
  const cases: [string, MarkedEntry, MarkedEntry | undefined, MoveContext, MoveDecision][] = [
    [
      "a partial reset of the source after its move: the reset channel is removed from this migration's copy",
      timed(source({ email: 'ALL' }, 12, 3), { inbox: at(12), email: at(1) }),
      timed(target({ inbox: 'NONE', email: 'ALL' }, 10, 4, ownMarker(4)), { inbox: at(1), email: at(1) }),
      context(),
      written(
        timed(source({ email: 'ALL' }, 12, 3), { inbox: at(12), email: at(1) }),
        { email: 'ALL' },
        5,
        keptMarker,
        4,
        false,
      ),
    ],
    [
      "channels the source has no time or value for keep the copy's value and time",
      timed(source({ inbox: 'MINE' }, 12, 1), { inbox: at(12) }),
      timed(target({ inbox: 'NONE', slack: 'ALL' }, 10, 4, ownMarker(4)), { inbox: at(1), slack: at(2) }),
      context(),
      written(
        timed(source({ inbox: 'MINE' }, 12, 1), { inbox: at(12), slack: at(2) }),
        { inbox: 'MINE', slack: 'ALL' },
        5,
        keptMarker,
        4,
        false,
      ),
    ],
    [
      'a source re-created by a late write stamped older than the copy: the copy keeps that channel',
      timed(source({ inbox: 'MINE', email: 'NONE' }, 12, 1), { inbox: at(5), email: at(12) }),
      timed(target({ inbox: 'NONE' }, 10, 4, ownMarker(4)), { inbox: at(8) }),
      context(),
      written(
        timed(source({ inbox: 'MINE', email: 'NONE' }, 12, 1), { inbox: at(8), email: at(12) }),
        { inbox: 'NONE', email: 'NONE' },
        5,
        keptMarker,
        4,
        false,
      ),
    ],
    [
      "a tombstone (the source emptied by a reset after its move): this migration's copy becomes one too",
      timed(source({}, 12, 3), { inbox: at(12), email: at(12), slack: at(12) }),
      timed(target({ inbox: 'NONE', email: 'ALL' }, 10, 4, ownMarker(4)), { inbox: at(1), email: at(1) }),
      context(),
      written(timed(source({}, 12, 3), { inbox: at(12), email: at(12), slack: at(12) }), {}, 5, keptMarker, 4, false),
    ],
    [
      'a tombstone already moved onto a counted copy (a redelivery): nothing to write',
      timed(source({}, 12, 3), { inbox: at(12) }),
      timed(target({}, 12, 5, ownMarker(5)), { inbox: at(12) }),
      context(),
      { action: 'keep' },
    ],
    [
      'a tombstone and no target: nothing moves, nothing is counted',
      timed(source({}, 12, 3), { inbox: at(12) }),
      undefined,
      context(),
      { action: 'drop' },
    ],
    [
      "a tombstone and an older entry of the user's at the target: the target stays, nothing is counted",
      timed(source({}, 12, 3), { slack: at(12) }),
      target({ slack: 'ALL' }, 5, 1),
      context(),
      { action: 'drop' },
    ],
    [
      'a tombstone and a newer target: dropped, not counted as skipped',
      timed(source({}, 12, 3), { inbox: at(12) }),
      target({ inbox: 'NONE' }, 20, 1),
      context(),
      { action: 'drop' },
    ],
    [
      'a tombstone over a copy of another migration: no entry, dropped',
      timed(source({}, 12, 3), { inbox: at(12) }),
      target({ inbox: 'NONE' }, 5, 4, { migrationId: 'mig-other', run: 'r', page: 1, version: 4 }),
      context(),
      { action: 'drop' },
    ],
    [
      'a newer tombstone at the target (a reset there) is no entry: the source is written over it',
      timed(source({ inbox: 'ALL' }, 10, 2), { inbox: at(10) }),
      timed(target({}, 20, 3), { inbox: at(20) }),
      context(),
      written(timed(source({ inbox: 'ALL' }, 10, 2), { inbox: at(10) }), { inbox: 'ALL' }, 4, newMarker, 3, true),
    ],
    [
      "a source set again after its tombstone was moved: its channels on top of this migration's tombstone",
      timed(source({ email: 'NONE' }, 14, 1), { email: at(14) }),
      timed(target({}, 12, 5, ownMarker(5)), { inbox: at(12), email: at(12) }),
      context(),
      written(
        timed(source({ email: 'NONE' }, 14, 1), { inbox: at(12), email: at(14) }),
        { email: 'NONE' },
        6,
        keptMarker,
        5,
        false,
      ),
    ],
  ];

  test.each(cases)('%s', (_name, sourceEntry, targetEntry, moveContext, expected) => {
    expect(decideMove(sourceEntry, targetEntry, moveContext)).toEqual(expected);
  });
});
