import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, test } from '@jest/globals';
import { DynamoEntryChanges } from '#shared/preferences/dynamo-entry-changes.js';
import { DynamoScheduleStore } from '#shared/preferences/dynamo-schedule-store.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import type { EntryChange } from '#shared/preferences/entry-changes.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import { MAX_CATEGORY_LAYERS } from '#shared/preferences/layers.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { entryId } from '#shared/preferences/store.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

// An import's page writes its changes in PartiQL batches (dynamo-entry-changes.ts): each must
// leave the entry exactly as setChannels or setSchedule alone would, and whatever a batch does
// not apply is written alone, with the single writes' verdicts.

const dynamo = useTestDynamo();
const EARLIER = '2026-03-01T00:00:00.000Z';
const STAMP = '2026-03-02T00:00:00.000Z';
const LATER = '2026-03-03T00:00:00.000Z';
const meta = (updatedAt: string, category?: string) => ({
  updatedAt,
  updatedBy: 'import:i1',
  cause: 'import' as const,
  ...(category === undefined ? {} : { category }),
  evidence: { via: 'import' as const, importId: 'i1' },
});

/** The calls a client sends, by command name, while it answers as DynamoDB Local does. */
const counted = (doc: DynamoDBDocumentClient) => {
  const calls: string[] = [];
  const client = {
    send: (command: { constructor: { name: string } }, options?: unknown) => {
      calls.push(command.constructor.name);
      return doc.send(command as never, options as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, calls };
};

let org = '';
const at = (userId: string, documentId: string | null = null, organizationId = org): EntryKey => ({
  organizationId,
  userId,
  documentId,
});
const itemOf = async (key: EntryKey) =>
  (
    await dynamo.doc.send(
      new GetCommand({ TableName: dynamo.tables.config, Key: entryTableKey(key), ConsistentRead: true }),
    )
  ).Item;
/** An item with its organization's id taken out, to compare two organizations' alike. */
const comparable = (item: Record<string, unknown> | undefined, organizationId: string) =>
  JSON.parse(
    JSON.stringify(item ?? null, (_, v) => (v instanceof Set ? [...v].sort() : v)).replaceAll(organizationId, 'ORG'),
  );

const singles = () => ({
  preferences: new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config),
  schedules: new DynamoScheduleStore(dynamo.doc, dynamo.tables.config),
});

beforeEach(() => {
  org = uniqueId('org-changes');
});

describe('an import page written in batches', () => {
  test('leaves every entry as the single writes do, in one call per 25 changes', async () => {
    const alone = uniqueId('org-alone');
    const { preferences, schedules } = singles();
    // Stored before: an organization entry and a document entry of u1.
    for (const organizationId of [org, alone]) {
      await preferences.setChannels(at('u1', null, organizationId), { inbox: 'MINE' }, meta(EARLIER));
      await preferences.setChannels(at('u1', 'doc-1', organizationId), { slack: 'ALL' }, meta(EARLIER));
    }
    const changesIn = (organizationId: string): EntryChange[] => [
      // Stored entries: an UPDATE each.
      { key: at('u1', null, organizationId), meta: meta(STAMP), config: { email: 'NONE' } },
      { key: at('u1', 'doc-1', organizationId), meta: meta(STAMP), config: { slack: 'NONE', inbox: 'ALL' } },
      // New entries: an INSERT each (a layer, a category layer, a schedule).
      { key: at('u2', 'doc-1', organizationId), meta: meta(STAMP), config: { inbox: 'NONE' } },
      { key: at('u3', null, organizationId), meta: meta(STAMP, 'news'), config: { email: 'ALL' } },
      { key: at('u4', null, organizationId), meta: meta(STAMP), schedule: { timeZone: 'Europe/Berlin' } },
      ...Array.from({ length: 30 }, (_, i) => ({
        key: at(`many-${i}`, 'doc-2', organizationId),
        meta: meta(STAMP),
        config: { email: 'MINE' as const },
      })),
    ];
    const { client, calls } = counted(dynamo.doc);
    const outcomes = await new DynamoEntryChanges(client, dynamo.tables.config).writeChanges(
      changesIn(org),
      new Set([entryId(at('u1')), entryId(at('u1', 'doc-1'))]),
    );
    expect(outcomes.every((outcome) => outcome === 'written')).toBe(true);
    expect(calls).toEqual(['BatchExecuteStatementCommand', 'BatchExecuteStatementCommand']);

    for (const change of changesIn(alone)) {
      if (change.config) await preferences.setChannels(change.key, change.config, change.meta);
      else await schedules.setSchedule(change.key, change.schedule ?? null, change.meta);
    }
    for (const change of changesIn(org)) {
      const other = { ...change.key, organizationId: alone };
      expect(comparable(await itemOf(change.key), org)).toEqual(comparable(await itemOf(other), alone));
    }
  });

  test('at a bound of writes per second, the batches start spread at that rate, not all at once', async () => {
    const changes: EntryChange[] = Array.from({ length: 100 }, (_, i) => ({
      key: at(`paced-${i}`),
      meta: meta(STAMP),
      config: { inbox: 'ALL' as const },
    }));
    const starts: number[] = [];
    const client = {
      send: (command: never, options?: never) => {
        starts.push(performance.now());
        return dynamo.doc.send(command, options);
      },
    } as unknown as DynamoDBDocumentClient;
    const started = performance.now();
    const outcomes = await new DynamoEntryChanges(client, dynamo.tables.config).writeChanges(changes, new Set(), 500);
    expect(outcomes.every((outcome) => outcome === 'written')).toBe(true);
    // Four batches of 25 at 500 a second: each starts 50 ms after the one before it, however
    // quickly the calls are answered (four may be in flight).
    expect(starts).toHaveLength(4);
    for (const [batch, time] of starts.entries()) expect(time - started).toBeGreaterThanOrEqual(batch * 50 - 1);
  });

  test("a channel stored newer keeps its value and the change's other channels still apply, written alone", async () => {
    const { preferences } = singles();
    await preferences.setChannels(at('u1'), { inbox: 'MINE' }, meta(LATER));
    const { client, calls } = counted(dynamo.doc);
    const outcomes = await new DynamoEntryChanges(client, dynamo.tables.config).writeChanges(
      [{ key: at('u1'), meta: meta(STAMP), config: { inbox: 'NONE', email: 'NONE' } }],
      new Set([entryId(at('u1'))]),
    );
    expect(outcomes).toEqual(['written']);
    expect(calls[0]).toBe('BatchExecuteStatementCommand');
    expect(calls).toContain('UpdateCommand');
    expect(await itemOf(at('u1'))).toMatchObject({ inbox: 'MINE', inboxAt: LATER, email: 'NONE', emailAt: STAMP });
  });

  test('an entry created since the page read it is updated, not replaced', async () => {
    const { preferences } = singles();
    await preferences.setChannels(at('u1'), { inbox: 'MINE' }, meta(EARLIER));
    const outcomes = await new DynamoEntryChanges(dynamo.doc, dynamo.tables.config).writeChanges(
      [{ key: at('u1'), meta: meta(STAMP), config: { email: 'NONE' } }],
      new Set(),
    );
    expect(outcomes).toEqual(['written']);
    expect(await itemOf(at('u1'))).toMatchObject({ inbox: 'MINE', email: 'NONE', version: 2 });
  });

  test('a category layer beyond the limit is refused as a set refuses it; the rest of the batch applies', async () => {
    const { preferences } = singles();
    for (let i = 0; i < MAX_CATEGORY_LAYERS; i += 1) {
      await preferences.setChannels(at('full'), { inbox: 'ALL' }, meta(EARLIER, `c${i}`));
    }
    const outcomes = await new DynamoEntryChanges(dynamo.doc, dynamo.tables.config).writeChanges(
      [
        { key: at('full'), meta: meta(STAMP, 'one-more'), config: { inbox: 'NONE' } },
        { key: at('u2'), meta: meta(STAMP, 'news'), config: { inbox: 'NONE' } },
      ],
      new Set([entryId(at('full'))]),
    );
    expect(outcomes).toEqual(['layersFull', 'written']);
    expect((await itemOf(at('full')))?.categoryIds).not.toContain('one-more');
    expect((await itemOf(at('u2')))?.categoryIds).toEqual(new Set(['news']));
  });

  test("one entry's changes apply in their order, and a schedule's removal empties what it leaves", async () => {
    const { schedules } = singles();
    await schedules.setSchedule(at('u1'), { timeZone: 'Asia/Tokyo' }, meta(EARLIER));
    const outcomes = await new DynamoEntryChanges(dynamo.doc, dynamo.tables.config).writeChanges(
      [
        { key: at('u2'), meta: meta(STAMP), config: { inbox: 'NONE' } },
        { key: at('u2'), meta: meta(STAMP), schedule: { timeZone: 'Europe/Paris' } },
        { key: at('u1'), meta: meta(STAMP), schedule: null },
      ],
      new Set([entryId(at('u1'))]),
    );
    expect(outcomes).toEqual(['written', 'written', 'written']);
    expect(await itemOf(at('u2'))).toMatchObject({
      inbox: 'NONE',
      schedule: JSON.stringify({ timeZone: 'Europe/Paris' }),
    });
    expect(await itemOf(at('u1'))).toBeUndefined();
  });
});
