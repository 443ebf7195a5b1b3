import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, jest, test } from '@jest/globals';
import { DynamoForwardWriter, forwardKey } from '#shared/links/forwarding.js';
import { deriveKeyring, newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import { DynamoLinkStateReader } from '#shared/links/link-state.js';
import type { OpenedLink } from '#shared/links/model.js';
import { DynamoLinkRevoker, REVOCATION_LIFETIME_SECONDS, revocationKey } from '#shared/links/revocation.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

// The links' storage against DynamoDB Local: a link's state in ONE read (the revocation, the
// policy, the entries and the forwarding record of its document, over two tables), one more per
// hop of a migrated document, a chain followed and a document migrated back not looped; a
// revocation only ever moves forward, keyed by a hash per key, expiring after the longest link life.
const dynamo = useTestDynamo();
const document = newKeyringDocument('k1');
document.keys.k2 = 'second-key-material-for-the-test-000000';
const keyring = deriveKeyring(document);
const key = keyring.current;

/** The running test's organization: a fresh one each test. */
let org = '';
beforeEach(() => {
  org = uniqueId('acme');
});

const reader = () => new DynamoLinkStateReader(dynamo.doc, dynamo.tables.config, dynamo.tables.migrations);
const now = Math.floor(Date.now() / 1000);
const link = (extra: Partial<OpenedLink> = {}): OpenedLink => ({
  organizationId: org,
  userId: 'alice',
  channel: 'email',
  issuedAt: now - 10,
  expiresAt: now + 3600,
  keyId: 'k1',
  ...extra,
});
const meta = { updatedAt: new Date().toISOString(), updatedBy: 'ak_test' };

/** Counts the read calls (BatchGetItem) a reading makes. */
const countingReads = async <T>(read: () => Promise<T>): Promise<{ value: T; reads: number }> => {
  const send = jest.spyOn(dynamo.doc, 'send');
  try {
    const value = await read();
    return { value, reads: send.mock.calls.length };
  } finally {
    send.mockRestore();
  }
};

describe("a link's state", () => {
  test('one read: policy, organization and document entries, over both tables', async () => {
    const preferences = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
    await preferences.setChannels({ organizationId: org, userId: 'alice', documentId: null }, { slack: 'ALL' }, meta);
    await preferences.setChannels({ organizationId: org, userId: 'alice', documentId: 'd1' }, { email: 'NONE' }, meta);
    await new DynamoPolicyStore(dynamo.doc, dynamo.tables.config).put(
      org,
      { channels: { email: { value: 'MINE' } } },
      meta,
    );
    const { value, reads } = await countingReads(() =>
      reader().read(link({ documentId: 'd1' }), key, { entries: true }),
    );
    expect(reads).toBe(1);
    expect(value?.documentId).toBe('d1');
    expect(value?.organization?.config).toEqual({ slack: 'ALL' });
    expect(value?.document?.config).toEqual({ email: 'NONE' });
    expect(value?.policy.policy).toEqual({ channels: { email: { value: 'MINE' } } });
  });

  test('a migrated document: one more read per hop, through a chain; A to B and back to A ends at A', async () => {
    const forwards = new DynamoForwardWriter(dynamo.doc, dynamo.tables.migrations);
    const preferences = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
    await preferences.setChannels({ organizationId: org, userId: 'alice', documentId: 'd3' }, { inbox: 'MINE' }, meta);
    const at = (ms: number) => new Date(Date.now() + ms);
    await forwards.forward({ organizationId: org, documentId: 'd1', newDocumentId: 'd2', migrationId: 'm1' }, at(1));
    await forwards.forward({ organizationId: org, documentId: 'd2', newDocumentId: 'd3', migrationId: 'm2' }, at(2));
    const chained = await countingReads(() => reader().read(link({ documentId: 'd1' }), key, { entries: true }));
    expect(chained.value?.documentId).toBe('d3');
    expect(chained.value?.document?.config).toEqual({ inbox: 'MINE' });
    expect(chained.reads).toBe(3);

    // x to y, then y back to x: a link about x stays at x (the older record is not followed again).
    await forwards.forward({ organizationId: org, documentId: 'x', newDocumentId: 'y', migrationId: 'm3' }, at(3));
    await forwards.forward({ organizationId: org, documentId: 'y', newDocumentId: 'x', migrationId: 'm4' }, at(4));
    const back = await countingReads(() => reader().read(link({ documentId: 'x' }), key, { entries: false }));
    expect(back.value?.documentId).toBe('x');
    expect(back.reads).toBe(3);
    // A record is kept a link's longest life (and a day), then expires.
    const { Item } = await dynamo.doc.send(
      new GetCommand({ TableName: dynamo.tables.migrations, Key: forwardKey(org, 'd1') }),
    );
    expect(Item?.expiresAt).toBeGreaterThan(now + 365 * 86_400);
  });

  test('revoked: undefined, by a revocation of any key of the keyring; a link issued later is not', async () => {
    const revoker = new DynamoLinkRevoker(dynamo.doc, dynamo.tables.config, staticKeyring(document));
    await revoker.revoke(org, ['alice'], new Date(now * 1000));
    expect(await reader().read(link(), key, { entries: false })).toBeUndefined();
    expect(
      await reader().read(link({ keyId: 'k2' }), keyring.byId.get('k2') as typeof key, { entries: false }),
    ).toBeUndefined();
    expect(await reader().read(link({ issuedAt: now + 1 }), key, { entries: false })).toBeDefined();
    // Bob is not alice.
    expect(await reader().read(link({ userId: 'bob' }), key, { entries: false })).toBeDefined();
  });
});

test('a revocation only moves forward, and expires after the longest link life', async () => {
  const revoker = new DynamoLinkRevoker(dynamo.doc, dynamo.tables.config, staticKeyring(document));
  await revoker.revoke(org, ['alice'], new Date(now * 1000));
  // A revocation that lands late, with an earlier time, changes nothing.
  await revoker.revoke(org, ['alice'], new Date((now - 100) * 1000));
  const { Item } = await dynamo.doc.send(
    new GetCommand({ TableName: dynamo.tables.config, Key: revocationKey(key, org, 'alice') }),
  );
  expect(Item).toEqual({
    ...revocationKey(key, org, 'alice'),
    revokedBefore: now + 1,
    tombstoneExpiresAt: now + 1 + REVOCATION_LIFETIME_SECONDS,
  });
  // No identifier in the item.
  expect(JSON.stringify(Item)).not.toMatch(/acme|alice/);
});
