import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, jest, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { resolveConfig } from '#shared/preferences/resolve.js';
import { resolveConfigResult } from '#shared/preferences/routes/resolve-config.js';
import { getConfig, setConfig } from '#shared/preferences/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

const dynamo = useTestDynamo();
let store: DynamoPreferenceStore;

beforeEach(async () => {
  org = uniqueId('org#r');
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
});

/** An own property (`x.__proto__` would read the prototype). */
const own = (object: object, key: string) => Object.getOwnPropertyDescriptor(object, key)?.value;

/** The running test's organization: a fresh one each test. */
let org = '';
const doc = 'doc/1';
const defaults = BUILT_IN_DEFAULTS;

describe('config resolve against DynamoDB Local', () => {
  test('each user resolved from document, organization and default layers, exactly as config/get answers', async () => {
    await setConfig({ store }, { organizationId: org, userIds: ['ann', 'bob'], config: { email: 'NONE' } }, 'ak');
    await setConfig(
      { store },
      { organizationId: org, userIds: ['ann'], documentIds: [doc], config: { inbox: 'NONE', slack: 'ALL' } },
      'ak',
    );
    // Another document's entry and another organization's are not this document's layers.
    await setConfig(
      { store },
      { organizationId: org, userIds: ['bob'], documentIds: ['x'], config: { inbox: 'NONE' } },
      'ak',
    );
    await setConfig({ store }, { organizationId: `${org}-other`, userIds: ['cy'], config: { inbox: 'NONE' } }, 'ak');

    const result = await resolveConfig(
      { store, defaults },
      { organizationId: org, documentId: doc, userIds: ['ann', 'bob', 'cy', 'ann'] },
    );
    expect(resolveConfigResult().parse(result)).toEqual(result);
    expect(result).toEqual({
      documentId: doc,
      users: {
        ann: {
          userId: 'ann',
          effective: { inbox: 'NONE', email: 'NONE', slack: 'ALL' },
          source: { inbox: 'document', email: 'organization', slack: 'document' },
        },
        bob: {
          userId: 'bob',
          effective: { inbox: 'ALL', email: 'NONE', slack: 'NONE' },
          source: { inbox: 'default', email: 'organization', slack: 'default' },
        },
        cy: {
          userId: 'cy',
          effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
          source: { inbox: 'default', email: 'default', slack: 'default' },
        },
      },
    });
    for (const userId of ['ann', 'bob', 'cy']) {
      const [view] = await getConfig({ store, defaults }, { organizationId: org, userId, documentIds: [doc] });
      expect(result.users[userId]).toEqual({ userId, effective: view?.effective, source: view?.source });
    }
  });

  test('with an activity: who receives it on which channel, recipients in request order', async () => {
    await setConfig(
      { store },
      { organizationId: org, userIds: ['u3', 'u1'], documentIds: [doc], config: { inbox: 'MINE', email: 'NONE' } },
      'ak',
    );
    await setConfig({ store }, { organizationId: org, userIds: ['u2'], config: { slack: 'ALL', email: 'ALL' } }, 'ak');
    const result = await resolveConfig(
      { store, defaults },
      {
        organizationId: org,
        documentId: doc,
        userIds: ['u3', 'u2', 'u1'],
        activity: { involvedUserIds: ['u1', 'zz'] },
      },
    );
    expect(result.users.u1?.deliver).toEqual({ inbox: true, email: false, slack: false });
    expect(result.users.u2?.deliver).toEqual({ inbox: true, email: true, slack: true });
    expect(result.users.u3?.deliver).toEqual({ inbox: false, email: false, slack: false });
    expect(result.recipients).toEqual({ inbox: ['u2', 'u1'], email: ['u2'], slack: ['u2'] });
    expect(resolveConfigResult().parse(result)).toEqual(result);

    // An empty list of involved users: MINE delivers to nobody.
    const none = await resolveConfig(
      { store, defaults },
      { organizationId: org, documentId: doc, userIds: ['u1'], activity: {} },
    );
    expect(none.recipients).toEqual({ inbox: [], email: [], slack: [] });
  });

  test('user ids such as __proto__ and constructor are keys of users like any other', async () => {
    await setConfig({ store }, { organizationId: org, userIds: ['__proto__'], config: { inbox: 'NONE' } }, 'ak');
    const result = await resolveConfig(
      { store, defaults },
      { organizationId: org, documentId: doc, userIds: ['__proto__', 'constructor'] },
    );
    const users = JSON.parse(JSON.stringify(result)).users;
    expect(Object.keys(users)).toEqual(['__proto__', 'constructor']);
    expect(own(users, '__proto__').effective.inbox).toBe('NONE');
    expect(own(users, 'constructor').effective.inbox).toBe('ALL');
  });

  test('1000 users are read with at most 20 batched read calls, issued concurrently', async () => {
    const userIds = Array.from({ length: 1000 }, (_, i) => `user-${i}`);
    await setConfig({ store }, { organizationId: org, userIds: userIds.slice(0, 300), config: { slack: 'ALL' } }, 'ak');
    await setConfig(
      { store },
      { organizationId: org, userIds: userIds.slice(200, 500), documentIds: [doc], config: { slack: 'MINE' } },
      'ak',
    );
    let inFlight = 0;
    let maxInFlight = 0;
    const calls: unknown[] = [];
    const send = dynamo.doc.send.bind(dynamo.doc);
    const spy = jest.spyOn(dynamo.doc, 'send').mockImplementation((async (command: unknown, ...rest: unknown[]) => {
      calls.push(command);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return await (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
      } finally {
        inFlight -= 1;
      }
    }) as never);
    try {
      const result = await resolveConfig({ store, defaults }, { organizationId: org, documentId: doc, userIds });
      expect(Object.keys(result.users)).toHaveLength(1000);
      expect(result.users['user-0']?.source.slack).toBe('organization');
      expect(result.users['user-250']?.effective.slack).toBe('MINE');
      expect(result.users['user-999']?.source.slack).toBe('default');
    } finally {
      spy.mockRestore();
    }
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((command) => command instanceof BatchGetCommand)).toBe(true);
    expect(calls.length).toBeLessThanOrEqual(20);
    // Concurrent, not one after another.
    expect(maxInFlight).toBeGreaterThan(1);
  });
});
