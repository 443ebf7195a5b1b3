import { describe, expect, test } from '@jest/globals';
import { MIGRATION_VISIBILITY_TIMEOUT_SECONDS } from '#service/functions.js';
import { MAX_DELAY_SECONDS } from '#shared/jobs/delivery-policy.js';
import { DEFAULT_STALL_LIMIT_MS, judgeJob, MAX_SWEEP_RESUMES } from '#shared/jobs/stuck-policy.js';
import { abandonedReason } from '#shared/jobs/wording.js';
import { migrationJob } from '#shared/migration/kind.js';
import type { MigrationRecord } from '#shared/migration/model.js';

const ABANDONED_REASON = abandonedReason(migrationJob);
/** The sweeper's verdict on a migration. */
const judgeMigration = (record: MigrationRecord, now: Date, stallLimitMs?: number) =>
  judgeJob(migrationJob, record, now, stallLimitMs);

const NOW = new Date(Date.UTC(2026, 2, 1, 12));
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const LIMIT_MINUTES = DEFAULT_STALL_LIMIT_MS / 60_000;

const record = (overrides: Partial<MigrationRecord> = {}): MigrationRecord => ({
  migrationId: 'mig-1',
  organizationId: 'org-1',
  documentId: 'src',
  newDocumentId: 'dst',
  status: 'in_progress',
  moved: 10,
  skipped: 0,
  createdAt: ago(120),
  updatedAt: ago(LIMIT_MINUTES + 1),
  queuedAt: ago(120),
  startedAt: ago(119),
  runs: {},
  skippedCheckpoint: [],
  ...overrides,
});

describe('left alone', () => {
  test.each<[string, Partial<MigrationRecord>, string]>([
    ['a completed migration', { status: 'completed' }, 'finished'],
    ['a failed migration', { status: 'failed' }, 'finished'],
    ['a live lease, however quiet', { leaseOwner: 'run', leaseUntil: NOW.getTime() + 1_000 }, 'leased'],
    ['progress within the stall limit', { updatedAt: ago(LIMIT_MINUTES - 1) }, 'recent'],
    ['a pending message still waiting within the limit', { status: 'pending', updatedAt: ago(5) }, 'recent'],
    ['re-queued less than a stall limit ago', { sweptAt: ago(LIMIT_MINUTES - 1), sweepResumes: 1 }, 'resumed'],
  ])('%s', (_name, overrides, why) => {
    expect(judgeMigration(record(overrides), NOW)).toEqual({ action: 'leave', why });
  });

  test('an unqueued record younger than the abandon time, even past a short limit: its request may still be queuing', () => {
    const young = record({ status: 'pending', queuedAt: undefined, createdAt: ago(1), updatedAt: ago(1) });
    expect(judgeMigration(young, NOW, 30_000)).toEqual({ action: 'leave', why: 'recent' });
  });
});

describe('resumed', () => {
  test.each<[string, Partial<MigrationRecord>]>([
    ['quiet past the limit, no lease', {}],
    ['an expired lease (its holder was killed)', { leaseOwner: 'run', leaseUntil: NOW.getTime() - 1 }],
    ['a queued pending migration whose message never came', { status: 'pending', startedAt: undefined }],
    ['re-queued once, a stall limit ago, still quiet', { sweptAt: ago(LIMIT_MINUTES), sweepResumes: 1 }],
    ['re-queued twice', { sweptAt: ago(LIMIT_MINUTES + 5), sweepResumes: MAX_SWEEP_RESUMES - 1 }],
  ])('%s', (_name, overrides) => {
    expect(judgeMigration(record(overrides), NOW)).toEqual({ action: 'resume' });
  });

  test('the limit is configurable', () => {
    const quiet = record({ updatedAt: ago(3) });
    expect(judgeMigration(quiet, NOW, 2 * 60_000)).toEqual({ action: 'resume' });
    expect(judgeMigration(quiet, NOW, 4 * 60_000)).toEqual({ action: 'leave', why: 'recent' });
  });
});

describe('failed', () => {
  test(`after ${MAX_SWEEP_RESUMES} re-queues without a saved page: no progress, with how long and what to do`, () => {
    const verdict = judgeMigration(
      record({ updatedAt: ago(3 * LIMIT_MINUTES), sweptAt: ago(LIMIT_MINUTES), sweepResumes: MAX_SWEEP_RESUMES }),
      NOW,
    );
    expect(verdict).toEqual({
      action: 'fail',
      guard: 'stalled',
      reason: expect.stringContaining(`made no progress for ${3 * LIMIT_MINUTES} minutes`),
    });
    expect(verdict.action === 'fail' && verdict.reason).toMatch(/partly migrated\. Start it again/);
  });

  test('a pending migration that was never queued, past the abandon time: only if still unqueued', () => {
    expect(judgeMigration(record({ status: 'pending', queuedAt: undefined, startedAt: undefined }), NOW)).toEqual({
      action: 'fail',
      guard: 'unqueued',
      reason: ABANDONED_REASON,
    });
  });

  test('a live lease still wins over the resume count', () => {
    const leased = record({ sweepResumes: MAX_SWEEP_RESUMES, leaseOwner: 'run', leaseUntil: NOW.getTime() + 1 });
    expect(judgeMigration(leased, NOW)).toEqual({ action: 'leave', why: 'leased' });
  });
});

test('the stall limit outlasts the longest quiet gap of a healthy migration: a retry after the visibility timeout, a delayed message', () => {
  expect(DEFAULT_STALL_LIMIT_MS).toBeGreaterThan((MIGRATION_VISIBILITY_TIMEOUT_SECONDS + MAX_DELAY_SECONDS) * 1000);
});
