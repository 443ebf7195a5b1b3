import { describe, expect, test } from '@jest/globals';
import type { DynamoDBRecord } from 'aws-lambda';
import { passesFilters } from '#local/streams/event-filter.js';
import { PUBLISHER_STREAM_FILTERS, planRecord } from '#shared/events/publisher.js';
import { entryItem, migrationItem, streamRecord } from '../support/stream-records.js';

/**
 * The change publisher's event source filters (service/functions.ts, the stack's event source
 * mappings, and the stream twin's matcher, local/streams/event-filter.ts): every record the
 * publisher plans anything for invokes it; the jobs table's locks, leases, progress and
 * idempotency keys do not.
 */
const deps = { tables: { config: 'config', migrations: 'migrations' }, retentionDays: 30 };
const plansSomething = (record: DynamoDBRecord) => {
  const plan = planRecord(deps, record);
  return plan.steps.length + plan.events.length > 0;
};
const passes = (table: 'config' | 'migrations', record: DynamoDBRecord) =>
  passesFilters(record, PUBLISHER_STREAM_FILTERS[table]);

const migration = migrationItem();
const policy = { pk: 'POLICY#acme', sk: 'POLICY', organizationId: 'acme', version: 2, policy: '{}' };

describe('records the publisher acts on invoke it', () => {
  test.each([
    ['an entry written', streamRecord('config', 'INSERT', { new: entryItem({ inbox: 'ALL' }) })],
    ['an entry changed', streamRecord('config', 'MODIFY', { old: entryItem(), new: entryItem({ email: 'NONE' }) })],
    ['an entry deleted', streamRecord('config', 'REMOVE', { old: entryItem({ email: 'NONE' }) })],
    ['a policy version', streamRecord('config', 'MODIFY', { old: { ...policy, version: 1 }, new: policy })],
  ])('config: %s', (_name, record) => {
    expect(plansSomething(record)).toBe(true);
    expect(passes('config', record)).toBe(true);
  });

  test.each([
    [
      'completed',
      streamRecord('migrations', 'MODIFY', {
        old: { ...migration, status: 'in_progress' },
        new: { ...migration, status: 'completed' },
      }),
    ],
    [
      'failed',
      streamRecord('migrations', 'MODIFY', {
        old: { ...migration, status: 'in_progress' },
        new: { ...migration, status: 'failed' },
      }),
    ],
  ])('jobs: a migration %s', (_name, record) => {
    expect(plansSomething(record)).toBe(true);
    expect(passes('migrations', record)).toBe(true);
  });
});

describe('records it would plan nothing for do not', () => {
  test.each([
    ['a job recorded', streamRecord('migrations', 'INSERT', { new: { ...migration, status: 'pending' } })],
    [
      'progress',
      streamRecord('migrations', 'MODIFY', {
        old: { ...migration, status: 'in_progress' },
        new: { ...migration, status: 'in_progress', moved: 9 },
      }),
    ],
    [
      'a lock',
      streamRecord('migrations', 'INSERT', { new: { pk: 'MLOCK#acme#doc-1', sk: 'LOCK', organizationId: 'acme' } }),
    ],
    [
      'an idempotency key',
      streamRecord('migrations', 'INSERT', { new: { pk: 'IDEMPOTENCY#x', sk: 'KEY', fingerprint: 'f', claimId: 'c' } }),
    ],
    [
      'a finished record expiring',
      streamRecord('migrations', 'REMOVE', { old: { ...migration, status: 'completed' } }),
    ],
  ])('jobs: %s', (_name, record) => {
    expect(plansSomething(record)).toBe(false);
    expect(passes('migrations', record)).toBe(false);
  });

  test.each([
    ['a policy removed', streamRecord('config', 'REMOVE', { old: policy })],
    [
      'an item of no user',
      streamRecord('config', 'INSERT', { new: { pk: 'LINKS#acme', sk: 'REVOKED', organizationId: 'acme' } }),
    ],
  ])('config: %s', (_name, record) => {
    expect(plansSomething(record)).toBe(false);
    expect(passes('config', record)).toBe(false);
  });
});

test('the twin matches as Lambda does: value lists, exists, prefix; any pattern; none lets all through', () => {
  const record = streamRecord('config', 'INSERT', { new: { pk: 'POLICY#a', sk: 'POLICY' } });
  expect(passesFilters(record, undefined)).toBe(true);
  expect(passesFilters(record, [{ eventName: ['MODIFY'] }, { eventName: ['INSERT'] }])).toBe(true);
  expect(passesFilters(record, [{ dynamodb: { NewImage: { pk: { S: [{ prefix: 'POLICY#' }] } } } }])).toBe(true);
  expect(passesFilters(record, [{ dynamodb: { NewImage: { userId: { S: [{ exists: true }] } } } }])).toBe(false);
  expect(passesFilters(record, [{ dynamodb: { NewImage: { userId: { S: [{ exists: false }] } } } }])).toBe(true);
});
