import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, expect, test } from '@jest/globals';
import { DynamoBrandingStore } from '#shared/branding/dynamo-store.js';
import { brandingKey } from '#shared/branding/keys.js';
import { getBranding, setBranding } from '#shared/branding/service.js';
import { policyKey } from '#shared/policy/keys.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';

const dynamo = useTestDynamo();
let store: DynamoBrandingStore;
let org = '';

beforeEach(() => {
  org = uniqueId('acme#branding');
  store = new DynamoBrandingStore(dynamo.doc, dynamo.tables.config);
});

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');
const now = () => new Date('2026-12-07T10:00:00.000Z');

test('an organization without a branding answers null', async () => {
  expect(await getBranding({ store }, { organizationId: org })).toEqual({ branding: null });
});

test('a set replaces the whole branding, answered as stored; null removes it', async () => {
  const full = {
    displayName: 'Acme',
    logo: { contentType: 'image/png' as const, data: PNG },
    accentColor: '#0B5CAD',
    embedOrigins: ['https://app.example', 'https://app.example'],
  };
  expect(await setBranding({ store, now }, { organizationId: org, branding: full }, 'ak_admin')).toEqual({
    updatedAt: '2026-12-07T10:00:00.000Z',
  });
  expect(await getBranding({ store }, { organizationId: org })).toEqual({
    branding: { ...full, accentColor: '#0b5cad', embedOrigins: ['https://app.example'] },
  });
  // The logo's version names its bytes: the pages' URL of it changes with it.
  const first = (await store.get(org))?.logoVersion;
  expect(first).toMatch(/^[\w-]{16}$/);

  await setBranding({ store, now }, { organizationId: org, branding: { displayName: 'Acme Docs' } }, 'ak_admin');
  expect(await getBranding({ store }, { organizationId: org })).toEqual({ branding: { displayName: 'Acme Docs' } });
  expect((await store.get(org))?.logoVersion).toBeUndefined();

  await setBranding({ store, now }, { organizationId: org, branding: null }, 'ak_admin');
  expect(await getBranding({ store }, { organizationId: org })).toEqual({ branding: null });
  expect(
    (await dynamo.doc.send(new GetCommand({ TableName: dynamo.tables.config, Key: brandingKey(org) }))).Item,
  ).toBeUndefined();
});

test("a branding's item is its own, beside the policy's, and says who set it", async () => {
  expect(brandingKey(org)).not.toEqual(policyKey(org));
  await setBranding({ store, now }, { organizationId: org, branding: { displayName: 'A' } }, 'ak_admin');
  const item = (await dynamo.doc.send(new GetCommand({ TableName: dynamo.tables.config, Key: brandingKey(org) }))).Item;
  expect(item).toMatchObject({ organizationId: org, updatedBy: 'ak_admin', updatedAt: '2026-12-07T10:00:00.000Z' });
});
