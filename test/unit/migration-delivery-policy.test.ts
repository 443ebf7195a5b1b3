import { describe, expect, test } from '@jest/globals';
import {
  DEFAULT_LEASE_MS,
  type Delivery,
  delayUntil,
  LEASE_GRACE_MS,
  LeaseHeldError,
  LeaseLostError,
  leaseEnd,
  onRunFailed as onJobRunFailed,
  onLeaseRefused,
  timeToContinue,
} from '#shared/jobs/delivery-policy.js';
import { migrationJob } from '#shared/migration/kind.js';
import type { MigrationRecord, MigrationStatus } from '#shared/migration/model.js';

/** What a migration's run does when it failed. */
const onRunFailed = (error: unknown, delivery: Delivery) => onJobRunFailed(error, delivery, migrationJob);

const NOW = Date.UTC(2026, 2, 1);
const attempt = (receiveCount: number, remainingMs?: number): Delivery => ({
  receiveCount,
  maxReceiveCount: 5,
  ...(remainingMs === undefined ? {} : { remainingTimeMs: () => remainingMs }),
});
const record = (status: MigrationStatus, leaseUntil?: number): MigrationRecord => ({
  migrationId: 'mig-1',
  organizationId: 'org-1',
  documentId: 'src',
  newDocumentId: 'dst',
  status,
  moved: 0,
  skipped: 0,
  createdAt: new Date(NOW).toISOString(),
  updatedAt: new Date(NOW).toISOString(),
  runs: {},
  skippedCheckpoint: [],
  ...(leaseUntil === undefined ? {} : { leaseOwner: 'other', leaseUntil }),
});

describe('the lease', () => {
  test('lasts until the invocation deadline plus a grace, or a default length without a deadline', () => {
    expect(leaseEnd(NOW, 40_000)).toBe(NOW + 40_000 + LEASE_GRACE_MS);
    expect(leaseEnd(NOW, undefined)).toBe(NOW + DEFAULT_LEASE_MS);
  });

  test.each([
    ['expires in 30 s', NOW + 30_000, 31],
    ['expires in 29.5 s (rounded up)', NOW + 29_500, 31],
    ['already expired', NOW - 60_000, 1],
    ['beyond the SQS maximum', NOW + 3_600_000, 900],
  ])('a message delayed until it has expired: %s', (_name, until, seconds) => {
    expect(delayUntil(until, NOW)).toBe(seconds);
  });
});

describe('a delivery that finds the lease held by another', () => {
  test.each([
    ['an unknown migration is dropped', undefined, 1, { action: 'drop', reason: 'unknown' }],
    ['a completed migration is dropped', record('completed'), 1, { action: 'drop', reason: 'finished' }],
    [
      'a failed migration is dropped, even on the last attempt',
      record('failed'),
      5,
      { action: 'drop', reason: 'finished' },
    ],
    [
      'an active migration before the last attempt: retried by the queue',
      record('in_progress', NOW + 30_000),
      4,
      { action: 'retry' },
    ],
    [
      'the last attempt behind a long lease: re-queued for 10 s at most',
      record('in_progress', NOW + 30_000),
      5,
      { action: 'requeue', delaySeconds: 10 },
    ],
    [
      'the last attempt behind a lease about to expire: re-queued until just after it',
      record('in_progress', NOW + 2_000),
      5,
      { action: 'requeue', delaySeconds: 3 },
    ],
    [
      'a pending migration on the last attempt: re-queued too',
      record('pending'),
      5,
      { action: 'requeue', delaySeconds: 1 },
    ],
    [
      'a receive count beyond the maximum counts as the last attempt',
      record('in_progress', NOW + 30_000),
      7,
      { action: 'requeue', delaySeconds: 10 },
    ],
  ])('%s', (_name, current, receiveCount, expected) => {
    expect(onLeaseRefused(current, attempt(receiveCount), NOW)).toEqual(expected);
  });
});

describe('the time budget', () => {
  test.each([
    ['the first page always runs, however little time is left', 0, 1_000, false],
    ['after a page, with enough time left: the next page', 1, 20_000, false],
    ['after a page, with less than the margin left: continue in a new message', 1, 14_999, true],
    ['exactly the margin left: the next page', 3, 15_000, false],
    ['no deadline known: never', 10, undefined, false],
  ])('%s', (_name, pagesDone, remainingMs, expected) => {
    expect(timeToContinue(attempt(1, remainingMs), pagesDone, 15_000)).toBe(expected);
  });
});

describe('a run that failed', () => {
  const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' });

  test.each([
    ['a held lease: left to its holder', new LeaseHeldError('held'), 5, { action: 'leave' }],
    [
      'a lost lease: left to the new holder, even on the last attempt',
      new LeaseLostError('lost'),
      5,
      { action: 'leave' },
    ],
    ['an error before the last attempt: the lease is released for the retry', throttled, 4, { action: 'release' }],
  ])('%s', (_name, error, receiveCount, expected) => {
    expect(onRunFailed(error, attempt(receiveCount))).toEqual(expected);
  });

  test('an error on the last attempt fails the migration with a reason naming the attempts and the error', () => {
    expect(onRunFailed(throttled, attempt(5))).toEqual({
      action: 'fail',
      reason:
        'The migration failed after 5 attempts (ProvisionedThroughputExceededException); documents may be partly migrated. Start it again to finish.',
    });
  });

  test('a thrown non-error still fails the migration on the last attempt', () => {
    expect(onRunFailed(undefined, attempt(5))).toMatchObject({
      action: 'fail',
      reason: expect.stringContaining('(Error)'),
    });
  });
});
