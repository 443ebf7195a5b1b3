import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, test } from '@jest/globals';
import { ApiError } from '#shared/api/errors.js';
import { planRecord } from '#shared/events/publisher.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { policyKey } from '#shared/policy/keys.js';
import { getPolicy, setPolicy } from '#shared/policy/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';
import { streamRecord } from '../support/stream-records.js';

const dynamo = useTestDynamo();
let store: DynamoPolicyStore;

beforeEach(async () => {
  org = uniqueId('acme#policy');
  store = new DynamoPolicyStore(dynamo.doc, dynamo.tables.config);
});

/** The running test's organization: a fresh one each test. */
let org = '';
const stored = async () =>
  (await dynamo.doc.send(new GetCommand({ TableName: dynamo.tables.config, Key: policyKey(org) }))).Item;

const rejection = async (promise: Promise<unknown>): Promise<ApiError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
};

describe('organization policy', () => {
  test('an organization without a policy answers the empty policy at version 0', async () => {
    expect(await getPolicy({ store }, { organizationId: org })).toEqual({ policy: {}, version: 0 });
  });

  test('a set replaces the whole policy, one version later, with who set it; locked: false is not kept', async () => {
    const now = () => new Date('2026-11-25T10:00:00.000Z');
    const first = await setPolicy(
      { store, now },
      {
        organizationId: org,
        policy: {
          channels: { email: { value: 'MINE', locked: false } },
          categories: { security: { label: 'Security', channels: { email: { value: 'ALL', locked: true } } } },
        },
      },
      'ak_admin',
    );
    expect(first).toEqual({ version: 1, updatedAt: '2026-11-25T10:00:00.000Z' });
    expect(await getPolicy({ store }, { organizationId: org })).toEqual({
      policy: {
        channels: { email: { value: 'MINE' } },
        categories: { security: { label: 'Security', channels: { email: { value: 'ALL', locked: true } } } },
      },
      version: 1,
      updatedAt: '2026-11-25T10:00:00.000Z',
      updatedBy: 'ak_admin',
    });
    const second = await setPolicy({ store }, { organizationId: org, policy: { channels: {} } }, 'ak_other');
    expect(second.version).toBe(2);
    const read = await getPolicy({ store }, { organizationId: org });
    expect([read.policy, read.version, read.updatedBy]).toEqual([{ channels: {} }, 2, 'ak_other']);
  });

  test('a stale expectedVersion is ABORTED with the stored version, and nothing changes', async () => {
    await setPolicy({ store }, { organizationId: org, policy: { channels: { inbox: { value: 'NONE' } } } }, 'ak');
    const before = await stored();
    for (const expectedVersion of [0, 2, 7]) {
      const error = await rejection(setPolicy({ store }, { organizationId: org, policy: {}, expectedVersion }, 'ak'));
      expect([error.status, error.httpStatus, error.details]).toEqual(['ABORTED', 409, { version: 1 }]);
    }
    expect(await stored()).toEqual(before);
    expect((await setPolicy({ store }, { organizationId: org, policy: {}, expectedVersion: 1 }, 'ak')).version).toBe(2);
  });

  test('expectedVersion 1 on an organization without a policy is ABORTED with version 0', async () => {
    const error = await rejection(setPolicy({ store }, { organizationId: org, policy: {}, expectedVersion: 1 }, 'ak'));
    expect([error.status, error.details]).toEqual(['ABORTED', { version: 0 }]);
    expect(await stored()).toBeUndefined();
  });

  test('of concurrent sets from one version, exactly one applies', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        setPolicy(
          { store },
          {
            organizationId: org,
            policy: { channels: { slack: { value: index % 2 ? 'ALL' : 'NONE' } } },
            expectedVersion: 0,
          },
          `ak_${index}`,
        ),
      ),
    );
    const applied = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(applied).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect((outcome.reason as ApiError).status).toBe('ABORTED');
    }
    expect((await getPolicy({ store }, { organizationId: org })).version).toBe(1);
  });

  test('categories come back in the order they were set (DynamoDB keeps a map in an order of its own)', async () => {
    // Enough ids that DynamoDB's own order of the map differs from the set's.
    const ids = Array.from({ length: 40 }, (_, i) => `c${(i * 7) % 40}`);
    const categories = Object.fromEntries(ids.map((id) => [id, { label: id.toUpperCase() }]));
    await setPolicy({ store }, { organizationId: org, policy: { categories } }, 'ak_admin');
    const mapOrder = Object.keys((await stored())?.policy.categories ?? {});
    expect(mapOrder).not.toEqual(ids);
    const read = await getPolicy({ store }, { organizationId: org });
    expect(Object.keys(read.policy.categories ?? {})).toEqual(ids);
    const [event] = planRecord(
      { tables: { config: dynamo.tables.config, migrations: dynamo.tables.migrations }, retentionDays: 90 },
      streamRecord(dynamo.tables.config, 'INSERT', { new: await stored() }),
    ).events;
    const detail = event?.detail as unknown as { before: unknown; after: { categories: object } } | undefined;
    expect(detail?.before).toEqual({});
    expect(Object.keys(detail?.after.categories ?? {})).toEqual(ids);
  });

  test('a policy stored before the order was kept reads its categories by id', async () => {
    await setPolicy(
      { store },
      { organizationId: org, policy: { categories: { b: { label: 'B' }, a: { label: 'A' } } } },
      'ak',
    );
    await dynamo.doc.send(
      new UpdateCommand({
        TableName: dynamo.tables.config,
        Key: policyKey(org),
        UpdateExpression: 'REMOVE categoryOrder',
      }),
    );
    expect(Object.keys((await getPolicy({ store }, { organizationId: org })).policy.categories ?? {})).toEqual([
      'a',
      'b',
    ]);
  });

  test('a new version becomes one Notification Policy Changed event, with its before and after; no history', async () => {
    await setPolicy({ store }, { organizationId: org, policy: { channels: { inbox: { value: 'MINE' } } } }, 'ak_a');
    const old = await stored();
    await setPolicy({ store }, { organizationId: org, policy: { channels: { inbox: { value: 'NONE' } } } }, 'ak_b');
    const current = await stored();
    const deps = { tables: { config: dynamo.tables.config, migrations: dynamo.tables.migrations }, retentionDays: 90 };
    const { steps, events } = planRecord(deps, streamRecord(dynamo.tables.config, 'MODIFY', { old, new: current }));
    expect(events).toEqual([
      {
        detailType: 'Notification Policy Changed',
        source: 'notification-preferences',
        detail: {
          id: `policy:${org}:2`,
          organizationId: org,
          version: 2,
          before: { channels: { inbox: { value: 'MINE' } } },
          after: { channels: { inbox: { value: 'NONE' } } },
          changedAt: current?.updatedAt,
          changedBy: 'ak_b',
        },
      },
    ]);
    expect(steps).toEqual([]);
    // The first version has no before; a redelivered record announces the same id.
    const first = planRecord(deps, streamRecord(dynamo.tables.config, 'INSERT', { new: old })).events;
    expect(first[0]?.detail).toMatchObject({ id: `policy:${org}:1`, before: {}, version: 1 });
    expect(planRecord(deps, streamRecord(dynamo.tables.config, 'INSERT', { new: old })).events[0]?.detail.id).toBe(
      `policy:${org}:1`,
    );
  });
});
