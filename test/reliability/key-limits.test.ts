import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { MAX_CATEGORY_LENGTH } from '#shared/api/categories.js';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { MAX_IDENTIFIER_LENGTH } from '#shared/api/identifiers.js';
import { Authenticator } from '#shared/auth/authenticator.js';
import { hashToken, MAX_API_KEY_LENGTH, MAX_TOKEN_LENGTH } from '#shared/auth/credential.js';
import { DynamoCredentialStore } from '#shared/auth/dynamo-credential-store.js';
import { consentTextKey } from '#shared/consent/text-store.js';
import { lastErasureKey } from '#shared/erasure/last-erasure.js';
import { DynamoHistoryStore } from '#shared/history/dynamo-store.js';
import { historyKeys } from '#shared/history/keys.js';
import { getJobView } from '#shared/jobs/view.js';
import { lockKey, migrationKey } from '#shared/migration/keys.js';
import { migrationJob } from '#shared/migration/kind.js';
import { policyKey } from '#shared/policy/keys.js';
import { documentPartition, entryTableKey, escapeKeyPart, organizationPartition } from '#shared/preferences/keys.js';
import { getConfig, setConfig } from '#shared/preferences/service.js';
import { harness } from '../integration/migration-fixtures.js';
import { useTestDynamo } from '../support/dynamo.js';

// DynamoDB limits a partition key to 2,048 bytes and a sort key to 1,024 bytes, counted in
// UTF-8. Identifiers are limited to 256 UTF-16 code units (shared/api/identifiers.ts), and the
// key encoding escapes '%' and '#' as three characters. Per code unit the worst is 3 bytes
// either way: an escaped '%' or '#' (1 byte becomes 3), or a BMP character from U+0800 up
// ('€', U+FFFD); an astral character is 4 bytes for 2 units. DynamoDB Local enforces the
// limits as DynamoDB does (dynalite counted UTF-16 units and accepted far larger keys).
const PARTITION_KEY_LIMIT = 2048;
const SORT_KEY_LIMIT = 1024;
const bytes = (value: string) => Buffer.byteLength(value, 'utf8');
const n = MAX_IDENTIFIER_LENGTH;

/** Longest identifiers, each with the worst UTF-8 size for its use. */
const worst = {
  percent: '%'.repeat(n), // 256 bytes, 768 once escaped
  hash: '#'.repeat(n), // 256 bytes, 768 once escaped
  replacement: '\uFFFD'.repeat(n), // 768 bytes, escaped or not
  euro: '€'.repeat(n), // 768 bytes
  astral: '😀'.repeat(n / 2), // 512 bytes
  mixed: '%#€\uFFFD'.repeat(n / 4), // 768 bytes once escaped
};
const WORST_ESCAPED = worst.percent; // 3 bytes per code unit once escaped
const WORST_RAW = worst.replacement; // 3 bytes per code unit as it is
/** A history item's worst case: the longest identifiers, time and stream sequence number. */
const worstEntry = { organizationId: WORST_ESCAPED, userId: WORST_ESCAPED, documentId: WORST_ESCAPED };
/** With the longest category id (ASCII only: 64 bytes). */
const worstCategoryEntry = { ...worstEntry, category: 'c'.repeat(MAX_CATEGORY_LENGTH) };
const LATEST_TIME = '+275760-09-13T00:00:00.000Z'; // the longest ISO time JavaScript writes
const LONGEST_SEQUENCE = '9'.repeat(40); // stream sequence numbers have at most 40 digits
/** A second worst-case identifier, different from `id`. */
const otherThan = (id: string) => (id === worst.percent ? worst.replacement : worst.percent);

const dynamo = useTestDynamo({ tables: 'own', freshTablesPerTest: true });

describe('the worst case in bytes', () => {
  test('an escaped identifier part is at most 3 UTF-8 bytes per UTF-16 code unit', () => {
    const identifier = fc.string({ unit: 'binary', minLength: 1, maxLength: n }).filter((s) => s.isWellFormed());
    const tricky = fc
      .array(fc.constantFrom('%', '#', '€', '\uFFFD', '😀', 'a'), { minLength: 1, maxLength: n / 2 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(identifier, tricky), (id) => {
        expect(bytes(escapeKeyPart(id))).toBeLessThanOrEqual(3 * id.length);
        expect(bytes(id)).toBeLessThanOrEqual(3 * id.length);
      }),
    );
    expect(bytes(escapeKeyPart(worst.percent))).toBe(768);
    expect(bytes(escapeKeyPart(worst.hash))).toBe(768);
    expect(bytes(escapeKeyPart(worst.replacement))).toBe(768);
    expect(bytes(escapeKeyPart(worst.astral))).toBe(512);
  });

  test('every key built from the longest identifiers is within the limits, with the margin each has', () => {
    const sizes = {
      documentEntryPk: bytes(documentPartition(WORST_ESCAPED, WORST_ESCAPED)),
      organizationEntryPk: bytes(organizationPartition(WORST_ESCAPED)),
      entrySk: bytes(WORST_RAW),
      migrationRecordPk: bytes(migrationKey(WORST_RAW).pk),
      lockPk: bytes(lockKey(WORST_ESCAPED, WORST_ESCAPED).pk),
      credentialPk: bytes('~'.repeat(MAX_API_KEY_LENGTH)),
      historyPk: bytes(historyKeys(worstEntry, LATEST_TIME, LONGEST_SEQUENCE).pk),
      historySk: bytes(historyKeys(worstEntry, LATEST_TIME, LONGEST_SEQUENCE).sk),
      historyEntryPk: bytes(historyKeys(worstEntry, LATEST_TIME, LONGEST_SEQUENCE).entryPk),
      historyEntrySk: bytes(historyKeys(worstEntry, LATEST_TIME, LONGEST_SEQUENCE).entrySk),
      categoryHistorySk: bytes(historyKeys(worstCategoryEntry, LATEST_TIME, LONGEST_SEQUENCE).sk),
      categoryHistoryEntrySk: bytes(historyKeys(worstCategoryEntry, LATEST_TIME, LONGEST_SEQUENCE).entrySk),
      policyPk: bytes(policyKey(WORST_ESCAPED).pk),
      consentTextPk: bytes(consentTextKey(WORST_ESCAPED, 'f'.repeat(64)).pk),
      consentTextSk: bytes(consentTextKey(WORST_ESCAPED, 'f'.repeat(64)).sk),
      lastErasurePk: bytes(lastErasureKey(WORST_ESCAPED, WORST_ESCAPED).pk),
    };
    expect(sizes).toEqual({
      documentEntryPk: 4 + 768 + 1 + 768, // DOC#<org>#<doc>
      organizationEntryPk: 4 + 768, // ORG#<org>
      entrySk: 768, // <userId>, not escaped
      migrationRecordPk: 10 + 768, // MIGRATION#<migrationId>, not escaped
      lockPk: 5 + 768 + 1 + 768, // LOCK#<org>#<doc>
      credentialPk: 128, // visible ASCII only
      historyPk: 2 + 768 + 1 + 768, // H#<org>#<user>
      historySk: 27 + 1 + 40, // <changedAt>#<sequence number, 40 digits>
      historyEntryPk: 4 + 768 + 1 + 768, // the entry's config partition key
      historyEntrySk: 768 + 1 + 27 + 1 + 40, // <user>#<changedAt>#<sequence number>
      categoryHistorySk: 27 + 1 + 40 + 1 + 64, // ...#<category id, 64 ASCII characters>
      categoryHistoryEntrySk: 768 + 1 + 27 + 1 + 40 + 1 + 64,
      policyPk: 7 + 768, // POLICY#<org>
      consentTextPk: 8 + 768, // CONSENT#<org>
      consentTextSk: 64, // the text's SHA-256, hex
      lastErasurePk: 7 + 768 + 1 + 768, // ERASED#<org>#<user>
    });
    for (const [key, size] of Object.entries(sizes)) {
      // The history table's index keys (entryPk, entrySk) have the same limits as table keys.
      expect([key, size <= (key.endsWith('Sk') ? SORT_KEY_LIMIT : PARTITION_KEY_LIMIT)]).toEqual([key, true]);
    }
  });
});

describe('no two kinds of item share a key in the config table', () => {
  test('an entry of any organization, document and user never has the key of a policy', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.option(fc.string({ unit: 'binary' })),
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        (org, doc, user, policyOrg) => {
          const entry = entryTableKey({ organizationId: org, documentId: doc, userId: user });
          const policy = policyKey(policyOrg);
          expect(entry.pk === policy.pk && entry.sk === policy.sk).toBe(false);
          expect(entry.pk.startsWith('POLICY#')).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('DynamoDB Local enforces the limits (so the tests below prove something)', () => {
  test('a partition key of 2,049 UTF-8 bytes and a sort key of 1,025 bytes are refused, though far under that in UTF-16 units', async () => {
    const put = (pk: string, sk: string) =>
      dynamo.doc.send(new PutCommand({ TableName: dynamo.tables.config, Item: { pk, sk } }));
    const pk = `${'€'.repeat(682)}ab`; // 2,048 bytes, 684 units
    await expect(put(pk, 'u')).resolves.toBeDefined();
    await expect(put(`${pk}c`, 'u')).rejects.toThrow(/2048/);
    const sk = `${'€'.repeat(341)}a`; // 1,024 bytes, 342 units
    await expect(put('p', sk)).resolves.toBeDefined();
    await expect(put('p', `${sk}b`)).rejects.toThrow(/1024/);
  });
});

describe('the service writes and reads every key with the longest identifiers', () => {
  test.each(Object.entries(worst))('config entries, organization and document level: %s', async (_name, id) => {
    const { preferences: store } = harness(dynamo);
    const request = { organizationId: id, userIds: [id, otherThan(id)], documentIds: [id, otherThan(id)] };
    const set = await setConfig({ store }, { ...request, config: { inbox: 'NONE' } }, 'ak_test');
    expect(Object.values(set).map((r) => r.success)).toEqual([true, true]);
    const setOrganization = await setConfig(
      { store },
      { organizationId: id, userIds: [id], config: { email: 'MINE' } },
      'ak_test',
    );
    expect(setOrganization[id]?.success).toBe(true);

    const got = await getConfig(
      { store, defaults: BUILT_IN_DEFAULTS },
      { organizationId: id, userId: id, documentIds: [id, otherThan(id)] },
    );
    expect(got.map((view) => [view.documentId, view.config, view.effective.email])).toEqual([
      [id, { inbox: 'NONE' }, 'MINE'],
      [otherThan(id), { inbox: 'NONE' }, 'MINE'],
    ]);
  });

  test.each(Object.entries(worst))(
    'a migration: its record, both documents’ locks and the moved entries: %s',
    async (_name, id) => {
      const h = harness(dynamo);
      const newDocumentId = id === worst.hash ? worst.percent : worst.hash;
      const set = await setConfig(
        { store: h.preferences },
        { organizationId: id, userIds: [id, otherThan(id)], documentIds: [id], config: { slack: 'ALL' } },
        'ak_test',
      );
      expect(Object.values(set).every((r) => r.success)).toBe(true);

      const migrationId = await h.start(id, id, newDocumentId);
      expect(await h.lockExists(id, id)).toBe(true);
      expect(await h.lockExists(id, newDocumentId)).toBe(true);
      await h.deliver(migrationId);

      const view = await getJobView(migrationJob, { repository: h.repository }, id, migrationId);
      expect(view).toMatchObject({ status: 'completed', moved: 2 });
      expect((await h.documentEntries(id, newDocumentId)).map((e) => e.userId).sort()).toEqual(
        [id, otherThan(id)].sort(),
      );
      expect(await h.documentEntries(id, id)).toEqual([]);
      expect(await h.lockExists(id, id)).toBe(false);
    },
  );

  test('a status lookup of the longest migration id a client can send answers not found, not a database error', async () => {
    const { repository } = harness(dynamo);
    for (const id of Object.values(worst)) {
      await expect(getJobView(migrationJob, { repository }, worst.percent, id)).rejects.toMatchObject({
        status: 'NOT_FOUND',
      });
    }
  });

  test.each(Object.entries(worst))(
    'a history item (table and entry index), recorded and listed by user and by entry: %s',
    async (_name, id) => {
      const store = new DynamoHistoryStore(dynamo.doc, dynamo.tables.history);
      const entry = { organizationId: id, userId: id, documentId: otherThan(id) };
      const change = {
        changeId: 'c1',
        ...entry,
        scope: 'document' as const,
        category: null,
        cause: 'set' as const,
        changedAt: LATEST_TIME,
        changedBy: 'ak_test',
        evidence: { via: 'api' as const },
        before: {},
        after: { inbox: 'NONE' as const },
      };
      // The same record's change of the longest category's layer: a key of its own.
      const layer = { ...change, changeId: 'c1:category', category: worstCategoryEntry.category };
      expect(
        await store.recordAll(
          [change, layer].map((one) => ({
            recorded: { change: one, sequenceNumber: LONGEST_SEQUENCE },
            expiresAt: 2_000_000_000,
          })),
        ),
      ).toBeUndefined();
      const byUser = await store.list({ organizationId: id, userId: id, limit: 10 });
      const byEntry = await store.list({ ...entry, limit: 10 });
      expect([byUser.changes, byEntry.changes]).toEqual([
        [layer, change],
        [layer, change],
      ]);
    },
  );

  test('the credential lookup with the longest api key and token', async () => {
    const store = new DynamoCredentialStore(dynamo.doc, dynamo.tables.credentials);
    const apiKey = '~'.repeat(MAX_API_KEY_LENGTH);
    const token = '}'.repeat(MAX_TOKEN_LENGTH);
    await store.create({
      apiKey,
      tokenHash: hashToken(token),
      organizationIds: [worst.replacement],
      createdAt: new Date().toISOString(),
    });
    const authenticator = new Authenticator(store, { cacheSeconds: 0 });
    await expect(authenticator.authenticate(apiKey, token)).resolves.toMatchObject({ apiKey });
    await expect(authenticator.authenticate(`${apiKey.slice(1)}!`, token)).rejects.toMatchObject({
      status: 'UNAUTHENTICATED',
    });
  });
});
