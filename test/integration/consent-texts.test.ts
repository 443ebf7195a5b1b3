import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, expect, test } from '@jest/globals';
import { textSha256 } from '#shared/consent/consent.js';
import { consentTextKey, DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { DynamoErasureEntryStore } from '#shared/preferences/dynamo-erasure-entries.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { setConfig } from '#shared/preferences/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

// Contract 14.1: a consent text is stored once per organization, addressed by its SHA-256, and
// never changes; the changes carry the hash. A set that states a text the function already stored
// costs the same write calls as a set without a consent.

const dynamo = useTestDynamo();
let org = '';
beforeEach(() => {
  org = uniqueId('consent-org');
});

/** The document client, with every command it sends counted by name. */
const counting = () => {
  const sent = new Map<string, number>();
  const client = new Proxy(dynamo.doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        sent.set(command.constructor.name, (sent.get(command.constructor.name) ?? 0) + 1);
        return (target.send as (...args: unknown[]) => Promise<unknown>).call(target, command, ...rest);
      };
    },
  }) as DynamoDBDocumentClient;
  return { client, sent };
};

const storedTexts = async () =>
  (
    await dynamo.doc.send(
      new QueryCommand({
        TableName: dynamo.tables.config,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': consentTextKey(org, '').pk },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

const TEXT = 'I agree to receive emails about comments on my documents.';

test('the same text sent 1,000 times is stored once, and only the first request writes it', async () => {
  const { client, sent } = counting();
  const deps = {
    store: new DynamoPreferenceStore(client, dynamo.tables.config),
    texts: new DynamoConsentTextStore(client, dynamo.tables.config),
  };
  const set = (i: number) =>
    setConfig(
      deps,
      {
        organizationId: org,
        userIds: [`u${i % 10}`],
        config: { email: i % 2 === 0 ? 'ALL' : 'NONE' },
        consent: { source: 'signup-form', text: TEXT },
      },
      'ak_1',
    );
  for (let start = 0; start < 1_000; start += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, i) => set(start + i)));
  }
  expect(sent.get('PutCommand')).toBe(1);
  const [stored, ...more] = await storedTexts();
  expect(more).toEqual([]);
  expect(stored).toMatchObject({ sk: textSha256(TEXT), text: TEXT });

  // Other instances (cold functions) state it again: the stored text does not change.
  for (const other of [1, 2, 3]) {
    await resetConfig(
      { store: deps.store, texts: new DynamoConsentTextStore(dynamo.doc, dynamo.tables.config) },
      { organizationId: org, userIds: [`u${other}`], consent: { source: 'support', text: TEXT } },
      'ak_2',
    );
  }
  expect(await storedTexts()).toEqual([stored]);
  // A second text is a second item; the store reads both back by hash.
  await setConfig(
    deps,
    { organizationId: org, userIds: ['u1'], config: { inbox: 'NONE' }, consent: { source: 's', text: 'Other words.' } },
    'ak_1',
  );
  const texts = await deps.texts.getTexts(org, [textSha256(TEXT), textSha256('Other words.'), 'f'.repeat(64)]);
  expect(Object.fromEntries(texts)).toEqual({ [textSha256(TEXT)]: TEXT, [textSha256('Other words.')]: 'Other words.' });
});

test('a set stating a known text costs the write calls of a set without a consent', async () => {
  const writes = async (consent: boolean) => {
    const { client, sent } = counting();
    const texts = new DynamoConsentTextStore(client, dynamo.tables.config);
    await texts.putText(org, textSha256(TEXT), TEXT, new Date().toISOString());
    sent.clear();
    await setConfig(
      { store: new DynamoPreferenceStore(client, dynamo.tables.config), texts },
      {
        organizationId: org,
        userIds: ['a', 'b', 'c'],
        documentIds: ['d1', 'd2'],
        config: { slack: consent ? 'ALL' : 'MINE' },
        ...(consent ? { consent: { source: 'settings', text: TEXT } } : {}),
      },
      'ak_1',
    );
    return Object.fromEntries(sent);
  };
  const without = await writes(false);
  expect(await writes(true)).toEqual(without);
  expect(without).toEqual({ UpdateCommand: 6 });
});

test('texts are the organization’s words: the user index an erasure reads never lists them', async () => {
  const texts = new DynamoConsentTextStore(dynamo.doc, dynamo.tables.config);
  await setConfig(
    { store: new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config), texts },
    { organizationId: org, userIds: ['erased'], config: { email: 'NONE' }, consent: { source: 's', text: TEXT } },
    'ak_1',
  );
  const page = await new DynamoErasureEntryStore(dynamo.doc, dynamo.tables.config).listUserEntries(org, 'erased', 100);
  expect(page.keys).toEqual([{ organizationId: org, userId: 'erased', documentId: null }]);
  expect(await storedTexts()).toHaveLength(1);
});
