import { describe, expect, test } from '@jest/globals';
import {
  type ChangeCause,
  type ChannelConfig,
  type ChannelName,
  type ChannelValue,
  type ConfigChange,
  type ConfigItem,
  type ConfigScope,
  type ConfigSource,
  createClient,
  type EffectiveConfig,
  type ErasureStatus,
  type MigrationStatus,
  TransportError,
  type UserWriteResult,
} from '#client/index.js';
import type { Channel, DeliverySetting } from '#shared/api/channels.js';
import type { ErasureStatus as ServerErasureStatus } from '#shared/erasure/model.js';
import type { HistoryChange } from '#shared/history/results.js';
import type { MigrationStatus as ServerMigrationStatus } from '#shared/migration/model.js';
import type { Scope } from '#shared/preferences/model.js';
import type { UserWriteResult as ServerUserWriteResult } from '#shared/preferences/results.js';
import type { ConfigView } from '#shared/preferences/routes/get-config.js';
import type * as Server from '#tools/openapi/operations.js';

const item = (documentId: string | null): ConfigItem => ({
  userId: 'alice',
  documentId,
  scope: documentId === null ? 'organization' : 'document',
  config: { email: 'NONE' },
  categories: {},
  effective: { inbox: 'ALL', email: 'NONE', slack: 'NONE' },
  source: { inbox: 'default', email: documentId === null ? 'organization' : 'document', slack: 'default' },
});

/** A fetch that answers getConfig with the given items and records each request's data. */
const answering = (items: ConfigItem[]) => {
  const sent: unknown[] = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    sent.push(JSON.parse(init.body as string).data);
    return new Response(JSON.stringify({ result: { status: 'success', message: 'ok', data: items } }));
  }) as typeof globalThis.fetch;
  return { fetch, sent };
};
const base = { baseUrl: 'http://api.test', apiKey: 'ak_1', token: 'st_secret' };

describe('getConfigItem', () => {
  test('asks getConfig for the one document and resolves to its item, not a list', async () => {
    const { fetch, sent } = answering([item('doc-1')]);
    const view = await createClient({ ...base, fetch }).getConfigItem({
      organizationId: 'acme',
      userId: 'alice',
      documentId: 'doc-1',
    });
    expect(sent).toEqual([{ organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] }]);
    expect(view).toEqual(item('doc-1'));
    // Typed as the item itself: no `undefined` to rule out under noUncheckedIndexedAccess.
    const inbox: ChannelValue = view.effective.inbox;
    expect(inbox).toBe('ALL');
  });

  test.each([
    ['left out', {}],
    ['undefined', { documentId: undefined }],
    ['null, as an organization-level item names its document', { documentId: null }],
  ])('without a document (%s): the organization-level item', async (_name, documentId) => {
    const { fetch, sent } = answering([item(null)]);
    const view = await createClient({ ...base, fetch }).getConfigItem({
      organizationId: 'acme',
      userId: 'alice',
      ...documentId,
    });
    expect(sent).toEqual([{ organizationId: 'acme', userId: 'alice' }]);
    expect(view.scope).toBe('organization');
  });

  test.each([
    ['no item', []],
    ['two items', [item('doc-1'), item('doc-2')]],
  ])('an answer with %s is an invalid response, never a wrong item', async (_name, items) => {
    const { fetch } = answering(items);
    const call = createClient({ ...base, fetch }).getConfigItem({
      organizationId: 'acme',
      userId: 'a',
      documentId: 'd',
    });
    await expect(call).rejects.toBeInstanceOf(TransportError);
    await expect(call).rejects.toMatchObject({ kind: 'invalid-response' });
  });

  test('getConfig keeps its shape: a list of items', async () => {
    const { fetch } = answering([item('doc-1'), item('doc-2')]);
    const views: ConfigItem[] = await createClient({ ...base, fetch }).getConfig({
      organizationId: 'acme',
      userId: 'alice',
      documentIds: ['doc-1', 'doc-2'],
    });
    expect(views.map((view) => view.documentId)).toEqual(['doc-1', 'doc-2']);
  });
});

// The exported names are derived from the generated types; each must be exactly the service's own.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type SameNames = [
  Equal<ChannelName, Channel>,
  Equal<ChannelValue, DeliverySetting>,
  Equal<ChannelConfig, Server.OperationInput<'setConfig'>['config']>,
  Equal<EffectiveConfig, Record<Channel, DeliverySetting>>,
  Equal<ConfigSource, ConfigView['source']['inbox']>,
  Equal<ConfigScope, Scope>,
  Equal<ConfigItem, ConfigView>,
  Equal<UserWriteResult, ServerUserWriteResult>,
  Equal<ConfigChange, HistoryChange>,
  Equal<ChangeCause, HistoryChange['cause']>,
  Equal<MigrationStatus, ServerMigrationStatus>,
  Equal<ErasureStatus, ServerErasureStatus>,
];
test("the value types' names are the service's types", () => {
  // Checked by `npm run typecheck` (ts-jest only transpiles): one `false` fails it.
  const same: SameNames extends true[] ? true : false = true;
  expect(same).toBe(true);
});
