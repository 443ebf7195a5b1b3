import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from '@jest/globals';
import { MIGRATION_ENTRIES_GRANTS } from '#service/migration-entries-grants.js';
import { CONSENT_TEXT_STORE_GRANTS, DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { DynamoMigrationEntries } from '#shared/migration/copies.js';
import type { StoreAccess } from '#shared/platform/route.js';
import { DynamoEntryChanges } from '#shared/preferences/dynamo-entry-changes.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import { DynamoMigrationEntryStore } from '#shared/preferences/dynamo-migration-entries.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { entryId, type MarkedEntry, type UnchangedEntry } from '#shared/preferences/store.js';
import {
  ENTRY_CHANGE_GRANTS,
  ERASURE_ENTRY_STORE_GRANTS,
  MIGRATION_ENTRY_STORE_GRANTS,
  PREFERENCE_STORE_GRANTS,
  SCHEDULE_STORE_GRANTS,
} from '#shared/preferences/store-grants.js';

// A function is granted what the store operations its code calls declare (store-grants.ts): a
// declaration that misses what an operation sends is an AccessDenied on AWS only (DynamoDB Local
// checks no IAM), one that holds more is a grant nothing uses. So every operation is driven here
// through each of its paths (written, refused by a newer channel, left empty, a batch not applied)
// against a client that records the IAM action of every call, and what it recorded, on every path
// together, is what its declaration says: no more, no less.

const TABLE = 'config';
type Answer = (command: { constructor: { name: string }; input: Record<string, unknown> }) => unknown;

/** The IAM actions of one call (a transaction's and a PartiQL batch's: each item's own), on the table or an index. */
const actionsOf = (name: string, input: Record<string, unknown>): string[] => {
  switch (name) {
    case 'BatchExecuteStatementCommand':
      return (input.Statements as { Statement: string }[]).map(
        ({ Statement }) =>
          `PartiQL${(Statement.split(' ')[0] as string).charAt(0)}${Statement.split(' ')[0]?.slice(1).toLowerCase()}`,
      );
    case 'TransactWriteCommand':
      return (input.TransactItems as Record<string, unknown>[]).map((item) => `${Object.keys(item)[0]}Item`);
    case 'QueryCommand':
      return input.IndexName ? [`index:${input.IndexName}`] : ['Query'];
    default:
      return [
        name
          .replace(/Command$/, '')
          .replace(/^(Update|Delete|Put|Get)$/, '$1Item')
          .replace('BatchGet', 'BatchGetItem'),
      ];
  }
};

/** A client whose every call is answered by `answer` (or {}), its IAM actions recorded. */
const recording = (answer: Answer = () => ({})) => {
  const actions = new Set<string>();
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      for (const action of actionsOf(command.constructor.name, command.input)) actions.add(action);
      const result = answer(command);
      if (result instanceof Error) throw result;
      return result;
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, actions };
};

/** What a declaration grants, as recorded: table actions, and `index:<name>` for each queried index. */
const declared = (access: StoreAccess): string[] =>
  [...(access.tables?.config ?? []), ...(access.indexes?.config ?? []).map((index) => `index:${index}`)].sort();

/** Runs every path of an operation, each on a fresh recording client; the union of what they sent. */
const sentOnAllPaths = async (paths: ((client: DynamoDBDocumentClient) => Promise<unknown>)[], answers: Answer[]) => {
  const all = new Set<string>();
  for (const [i, path] of paths.entries()) {
    const { client, actions } = recording(answers[i]);
    await path(client);
    for (const action of actions) all.add(action);
  }
  return [...all].sort();
};

const conditionFailed = (item?: Record<string, unknown>) =>
  Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
    ...(item ? { Item: item } : {}),
  });
const key: EntryKey = { organizationId: 'o', userId: 'u', documentId: 'd' };
const orgKey: EntryKey = { ...key, documentId: null };
const meta = { updatedAt: '2026-01-02T00:00:00.000Z', updatedBy: 'ak' };
const unchanged: UnchangedEntry = { ...key, version: 1, updatedAt: '2026-01-01T00:00:00.000Z' };
const change = { cause: 'erasure' as const, changedBy: 'erasure:e', changedAt: meta.updatedAt };
const entry: MarkedEntry = {
  ...key,
  scope: 'document',
  config: { inbox: 'ALL' },
  updatedAt: meta.updatedAt,
  updatedBy: 'ak',
  version: 1,
};
/** Each path's answers: an update refused first (a newer channel), then applied; a batch's statements not applied. */
const refusedOnce = (): Answer => {
  let refused = false;
  return ({ constructor: { name } }) => {
    if (name !== 'UpdateCommand' || refused) return {};
    refused = true;
    return conditionFailed({ inboxAt: { S: '2026-01-03T00:00:00.000Z' } });
  };
};
/** A reset that leaves its entry with nothing: the update answers the emptied item. */
const leftEmpty: Answer = ({ constructor: { name } }) =>
  name === 'UpdateCommand' ? { Attributes: { ...entryTableKey(orgKey), updatedAt: meta.updatedAt } } : {};
const leftEmptyLayer: Answer = ({ constructor: { name } }) =>
  name === 'UpdateCommand'
    ? { Attributes: { ...entryTableKey(key), updatedAt: meta.updatedAt, categoryIds: new Set(['c']) } }
    : {};
const batchNotApplied: Answer = ({ constructor: { name }, input }) =>
  name === 'BatchExecuteStatementCommand'
    ? { Responses: (input.Statements as unknown[]).map(() => ({ Error: { Code: 'ThrottlingError' } })) }
    : {};

describe('each store operation sends what its grants declare, no more, no less', () => {
  const preferences = (client: DynamoDBDocumentClient) => new DynamoPreferenceStore(client, TABLE);
  const schedules = (client: DynamoDBDocumentClient) => new DynamoScheduleStore(client, TABLE);
  const migrations = (client: DynamoDBDocumentClient) => new DynamoMigrationEntryStore(client, TABLE);
  const copies = (client: DynamoDBDocumentClient) => new DynamoMigrationEntries(client, TABLE);
  const erasures = (client: DynamoDBDocumentClient) => new DynamoErasureEntryStore(client, TABLE);
  const texts = (client: DynamoDBDocumentClient) => new DynamoConsentTextStore(client, TABLE);
  const entryChanges = (client: DynamoDBDocumentClient) => new DynamoEntryChanges(client, TABLE);

  const cases: [string, StoreAccess, ((client: DynamoDBDocumentClient) => Promise<unknown>)[], Answer[]][] = [
    [
      'setChannels',
      PREFERENCE_STORE_GRANTS.setChannels,
      [(c) => preferences(c).setChannels(key, { inbox: 'NONE' }, meta)],
      [refusedOnce()],
    ],
    [
      'resetChannels',
      PREFERENCE_STORE_GRANTS.resetChannels,
      [
        (c) => preferences(c).resetChannels(orgKey, ['inbox'], meta),
        (c) => preferences(c).resetChannels(key, ['inbox'], { ...meta, category: 'c' }),
        (c) => preferences(c).resetChannels(key, ['inbox'], meta),
      ],
      [leftEmpty, leftEmptyLayer, refusedOnce()],
    ],
    ['getEntries', PREFERENCE_STORE_GRANTS.getEntries, [(c) => preferences(c).getEntries([key])], [() => ({})]],
    [
      'getEntriesWithPolicy',
      PREFERENCE_STORE_GRANTS.getEntriesWithPolicy,
      [(c) => preferences(c).getEntriesWithPolicy([key], 'o')],
      [() => ({})],
    ],
    [
      'getUserLayers',
      PREFERENCE_STORE_GRANTS.getUserLayers,
      [(c) => preferences(c).getUserLayers('o', 'd', ['u'])],
      [() => ({})],
    ],
    [
      'getUserLayersWithPolicy',
      PREFERENCE_STORE_GRANTS.getUserLayersWithPolicy,
      [(c) => preferences(c).getUserLayersWithPolicy('o', 'd', ['u'])],
      [() => ({})],
    ],
    [
      'setSchedule',
      SCHEDULE_STORE_GRANTS.setSchedule,
      [
        (c) => schedules(c).setSchedule(orgKey, { timeZone: 'UTC' }, meta),
        (c) => schedules(c).setSchedule(orgKey, null, meta),
      ],
      [refusedOnce(), leftEmpty],
    ],
    [
      'writeChanges',
      ENTRY_CHANGE_GRANTS.writeChanges,
      [
        // A new entry (INSERT) and a stored one (UPDATE), the batch not applied: each written alone.
        (c) =>
          entryChanges(c).writeChanges(
            [
              { key, meta, config: { inbox: 'NONE' } },
              { key: orgKey, meta, config: { email: 'ALL' } },
            ],
            new Set([entryId(orgKey)]),
          ),
        // A schedule's removal, written alone, leaving its entry empty.
        (c) => entryChanges(c).writeChanges([{ key: orgKey, meta, schedule: null }], new Set([entryId(orgKey)])),
      ],
      [batchNotApplied, leftEmpty],
    ],
    [
      'schedules getEntries',
      SCHEDULE_STORE_GRANTS.getEntries,
      [(c) => schedules(c).getEntries([orgKey])],
      [() => ({})],
    ],
    [
      'listDocumentEntries',
      MIGRATION_ENTRY_STORE_GRANTS.listDocumentEntries,
      [(c) => migrations(c).listDocumentEntries('o', 'd', 10)],
      [() => ({})],
    ],
    [
      'getMarkedEntries',
      MIGRATION_ENTRY_STORE_GRANTS.getMarkedEntries,
      [(c) => migrations(c).getMarkedEntries([key])],
      [() => ({})],
    ],
    [
      'putEntryIf',
      MIGRATION_ENTRY_STORE_GRANTS.putEntryIf,
      [(c) => migrations(c).putEntryIf(entry, null, change)],
      [() => ({})],
    ],
    [
      'stampForDelete',
      MIGRATION_ENTRY_STORE_GRANTS.stampForDelete,
      [
        (c) => migrations(c).stampForDelete([unchanged], change),
        (c) => erasures(c).stampForDelete([unchanged], change),
      ],
      [() => ({ Responses: [{}] }), batchNotApplied],
    ],
    [
      'deleteEntryIf',
      MIGRATION_ENTRY_STORE_GRANTS.deleteEntryIf,
      [(c) => migrations(c).deleteEntryIf(key, unchanged, change)],
      [() => ({})],
    ],
    [
      'deleteEntriesIf',
      MIGRATION_ENTRY_STORE_GRANTS.deleteEntriesIf,
      [
        (c) => migrations(c).deleteEntriesIf([unchanged], change),
        (c) => erasures(c).deleteEntriesIf([unchanged], change),
      ],
      [() => ({ Responses: [{}] }), batchNotApplied],
    ],
    [
      'copyEntryIf',
      MIGRATION_ENTRIES_GRANTS.copyEntryIf,
      [(c) => copies(c).copyEntryIf(entry, null, unchanged, change)],
      [() => ({})],
    ],
    [
      'listUserEntries',
      ERASURE_ENTRY_STORE_GRANTS.listUserEntries,
      [(c) => erasures(c).listUserEntries('o', 'u', 10)],
      [() => ({})],
    ],
    [
      'putText',
      CONSENT_TEXT_STORE_GRANTS.putText,
      [(c) => texts(c).putText('o', 'a'.repeat(64), 'Yes.', meta.updatedAt)],
      [() => ({}), () => conditionFailed(undefined)],
    ],
    ['getTexts', CONSENT_TEXT_STORE_GRANTS.getTexts, [(c) => texts(c).getTexts('o', ['a'.repeat(64)])], [() => ({})]],
  ];

  test.each(cases)('%s', async (_name, access, paths, answers) => {
    expect(await sentOnAllPaths(paths, answers)).toEqual(declared(access));
  });

  test('every operation of every port is driven above', () => {
    const driven = new Set(cases.map(([name]) => name.replace(/^schedules /, '')));
    for (const grants of [
      PREFERENCE_STORE_GRANTS,
      SCHEDULE_STORE_GRANTS,
      MIGRATION_ENTRY_STORE_GRANTS,
      MIGRATION_ENTRIES_GRANTS,
      ERASURE_ENTRY_STORE_GRANTS,
      CONSENT_TEXT_STORE_GRANTS,
    ]) {
      for (const operation of Object.keys(grants)) expect(driven).toContain(operation);
    }
  });

  test('the erasure port shares the migration port’s stamped deletes and reads, declared alike', () => {
    for (const operation of ['getMarkedEntries', 'stampForDelete', 'deleteEntriesIf'] as const) {
      expect(ERASURE_ENTRY_STORE_GRANTS[operation]).toEqual(MIGRATION_ENTRY_STORE_GRANTS[operation]);
    }
  });
});
