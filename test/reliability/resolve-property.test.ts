import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { CHANNELS, DELIVERY_SETTINGS, type FullChannelConfig } from '#shared/api/channels.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import { resolveConfig } from '#shared/preferences/resolve.js';
import { getConfig } from '#shared/preferences/service.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

// Property: for any stored layers and any deployment defaults, what config/resolve answers
// for a user is exactly the effective/source of config/get for that user and document.

let dynamo: TestDynamo;
let store: DynamoPreferenceStore;

beforeAll(async () => {
  dynamo = await startTestDynamo({ tables: 'own' });
  store = new DynamoPreferenceStore(dynamo.doc, dynamo.tables.config);
});
afterAll(async () => {
  await dynamo.close();
});

const setting = fc.constantFrom(...DELIVERY_SETTINGS);
/** A random subset of channels with random values (possibly none: no entry). */
const layer: fc.Arbitrary<ChannelConfig> = fc.record(
  { inbox: setting, email: setting, slack: setting },
  { requiredKeys: [] },
);
const defaults: fc.Arbitrary<FullChannelConfig> = fc.record({ inbox: setting, email: setting, slack: setting });
const userLayers = fc.uniqueArray(
  fc.record({
    userId: fc.oneof(
      fc.constantFrom('__proto__', 'constructor', 'a#b', 'ü'),
      fc.string({ minLength: 1, maxLength: 8 }),
    ),
    document: layer,
    organization: layer,
  }),
  { minLength: 1, maxLength: 6, selector: (user) => user.userId },
);

let run = 0;

test('resolve answers what get answers, for every user, layer combination and default', async () => {
  await fc.assert(
    fc.asyncProperty(userLayers, defaults, async (users, deploymentDefaults) => {
      // A fresh organization per run: runs never see each other's entries.
      const organizationId = `org-${++run}`;
      const documentId = 'doc';
      const meta = { updatedAt: new Date().toISOString(), updatedBy: 'ak' };
      for (const user of users) {
        for (const [documentKey, config] of [
          [documentId, user.document],
          [null, user.organization],
        ] as const) {
          if (CHANNELS.some((channel) => config[channel] !== undefined)) {
            await store.setChannels({ organizationId, userId: user.userId, documentId: documentKey }, config, meta);
          }
        }
      }
      const userIds = users.map((user) => user.userId);
      const resolved = await resolveConfig(
        { store, defaults: deploymentDefaults },
        { organizationId, documentId, userIds },
      );
      // (Object key order puts integer-like ids first, so the keys are compared as sets.)
      expect(Object.keys(resolved.users).sort()).toEqual([...userIds].sort());
      for (const userId of userIds) {
        const [view] = await getConfig(
          { store, defaults: deploymentDefaults },
          { organizationId, userId, documentIds: [documentId] },
        );
        expect(resolved.users[userId]).toEqual({ userId, effective: view?.effective, source: view?.source });
      }
    }),
    { numRuns: 60 },
  );
});
