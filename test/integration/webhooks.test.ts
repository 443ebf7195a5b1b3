import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, test } from '@jest/globals';
import { passesFilters } from '#local/streams/event-filter.js';
import { ApiError } from '#shared/api/errors.js';
import { PUBLISHER_STREAM_FILTERS, planRecord } from '#shared/events/publisher.js';
import { newKeyringDocument, staticKeyring } from '#shared/links/keyring.js';
import { DynamoDeliveryLog, DynamoWebhookStore } from '#shared/webhooks/dynamo-store.js';
import { webhooksKey } from '#shared/webhooks/keys.js';
import { ALL_EVENT_TYPES } from '#shared/webhooks/model.js';
import { getWebhookDeliveries, getWebhooks, rotateWebhookSecret, setWebhooks } from '#shared/webhooks/service.js';
import { uniqueId, useTestDynamo } from '../support/dynamo.js';
import { streamRecord } from '../support/stream-records.js';

const dynamo = useTestDynamo();
const keys = staticKeyring(newKeyringDocument());
const publicHost = async () => [{ address: '93.184.215.14', family: 4 }];
let org = '';
let deps: Parameters<typeof setWebhooks>[0];

beforeEach(() => {
  org = uniqueId('acme#hooks');
  deps = {
    store: new DynamoWebhookStore(dynamo.doc, dynamo.tables.config),
    keys,
    allowLoopback: false,
    resolve: publicHost,
  };
});

const rejection = async (promise: Promise<unknown>): Promise<ApiError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
};

const stored = async () =>
  (await dynamo.doc.send(new GetCommand({ TableName: dynamo.tables.config, Key: webhooksKey(org) }))).Item;

describe('webhooks/set, get and rotate-secret', () => {
  test('a new endpoint gets every type by default and its secret once; get never shows a secret', async () => {
    const set = await setWebhooks(
      deps,
      { organizationId: org, endpoints: [{ url: 'https://hooks.example.com/in' }] },
      'key1',
    );
    const [endpoint] = set.endpoints;
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^ep_[A-Za-z0-9_-]{16}$/),
      url: 'https://hooks.example.com/in',
      eventTypes: ALL_EVENT_TYPES,
      disabled: false,
      secret: expect.stringMatching(/^whsec_/),
    });
    const got = await getWebhooks(deps, { organizationId: org });
    expect(got).toEqual({ endpoints: [{ ...endpoint, secret: undefined }].map(({ secret: _s, ...view }) => view) });
    expect(JSON.stringify(got)).not.toContain('whsec_');
    // Stored sealed: the clear secret is nowhere in the item.
    expect(JSON.stringify(await stored())).not.toContain(String(endpoint?.secret).slice(6));
  });

  test('a set naming an endpoint keeps its id and secret and answers no secret; the list is replaced', async () => {
    const first = await setWebhooks(
      deps,
      { organizationId: org, endpoints: [{ url: 'https://a.example.com/' }, { url: 'https://b.example.com/' }] },
      'key1',
    );
    const [a] = first.endpoints;
    const sealedBefore = (await stored())?.endpoints[a?.id as string].secret;
    const second = await setWebhooks(
      deps,
      {
        organizationId: org,
        endpoints: [
          {
            id: a?.id,
            url: 'https://a2.example.com/',
            eventTypes: ['user.erased', 'preference.changed'],
            disabled: true,
          },
        ],
      },
      'key1',
    );
    expect(second.endpoints).toEqual([
      {
        id: a?.id,
        url: 'https://a2.example.com/',
        eventTypes: ['preference.changed', 'user.erased'],
        disabled: true,
        disabledReason: 'requested',
      },
    ]);
    expect((await stored())?.endpoints[a?.id as string].secret).toBe(sealedBefore);
    expect((await getWebhooks(deps, { organizationId: org })).endpoints).toHaveLength(1);
  });

  test('hostile input: unknown or repeated ids, private or non-https URLs are INVALID_ARGUMENT, nothing stored', async () => {
    const cases = [
      {
        endpoints: [{ id: 'ep_AAAAAAAAAAAAAAAA', url: 'https://a.example.com/' }],
        message: /endpoints\[0\]\.id: no endpoint/,
      },
      { endpoints: [{ url: 'http://a.example.com/' }], message: /endpoints\[0\]\.url must be https/ },
      {
        endpoints: [{ url: 'https://127.0.0.1/' }],
        message: /endpoints\[0\]\.url: the host 127\.0\.0\.1 is a loopback/,
      },
      { endpoints: [{ url: 'https://[fd00:ec2::254]/' }], message: /metadata address/ },
    ];
    for (const { endpoints, message } of cases) {
      const error = await rejection(setWebhooks(deps, { organizationId: org, endpoints }, 'key1'));
      expect(error.status).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    const rebinding = { ...deps, resolve: async () => [{ address: '10.0.0.8', family: 4 }] };
    const error = await rejection(
      setWebhooks(rebinding, { organizationId: org, endpoints: [{ url: 'https://x.example.com/' }] }, 'k'),
    );
    expect(error.message).toMatch(/resolves to 10\.0\.0\.8/);
    expect(await stored()).toBeUndefined();
  });

  test('rotate-secret answers a new secret and keeps the old one beside it for 24 hours; unknown endpoint: NOT_FOUND', async () => {
    const now = () => new Date('2026-12-07T10:00:00.000Z');
    const [endpoint] = (
      await setWebhooks(deps, { organizationId: org, endpoints: [{ url: 'https://a.example.com/' }] }, 'k')
    ).endpoints;
    const before = (await stored())?.endpoints[endpoint?.id as string];
    const { secret } = await rotateWebhookSecret(
      { ...deps, now },
      { organizationId: org, endpointId: endpoint?.id as string },
    );
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint?.secret);
    const after = (await stored())?.endpoints[endpoint?.id as string];
    expect(after.previousSecret).toBe(before.secret);
    expect(after.previousUntil).toBe('2026-12-08T10:00:00.000Z');
    const error = await rejection(
      rotateWebhookSecret(deps, { organizationId: org, endpointId: 'ep_BBBBBBBBBBBBBBBB' }),
    );
    expect(error.status).toBe('NOT_FOUND');
  });

  test('a set that read the endpoints before a rotation or a disable is ABORTED, never writing the old state back', async () => {
    const [endpoint] = (
      await setWebhooks(deps, { organizationId: org, endpoints: [{ url: 'https://a.example.com/' }] }, 'k')
    ).endpoints;
    const id = endpoint?.id as string;
    for (const change of [
      () => rotateWebhookSecret(deps, { organizationId: org, endpointId: id }),
      () => deps.store.disable(org, id, 'gone'),
    ]) {
      const read = await deps.store.get(org);
      await change();
      await expect(
        deps.store.put(org, read.endpoints, { updatedAt: 'now', updatedBy: 'k' }, read.version),
      ).rejects.toThrow('The endpoints changed meanwhile');
    }
    expect((await getWebhooks(deps, { organizationId: org })).endpoints[0]).toMatchObject({ disabledReason: 'gone' });
  });

  test('the endpoints item never reaches the change publisher: no history, no event', async () => {
    await setWebhooks(deps, { organizationId: org, endpoints: [{ url: 'https://a.example.com/' }] }, 'k');
    const record = streamRecord(dynamo.tables.config, 'INSERT', { new: await stored() });
    expect(passesFilters(record, PUBLISHER_STREAM_FILTERS.config)).toBe(false);
    expect(planRecord({ tables: { config: dynamo.tables.config, migrations: 'm' }, retentionDays: 1 }, record)).toEqual(
      {
        steps: [],
        events: [],
      },
    );
  });
});

describe('webhooks/deliveries', () => {
  test('newest first, 50 a page, with a cursor that refuses anything it did not make', async () => {
    const log = new DynamoDeliveryLog(dynamo.doc, dynamo.tables.history);
    const endpointId = 'ep_CCCCCCCCCCCCCCCC';
    for (let i = 0; i < 55; i += 1) {
      await log.record(org, endpointId, {
        eventId: `e${i}`,
        type: 'preference.changed',
        attempt: 1,
        statusCode: i % 2 ? 200 : null,
        durationMs: 3,
        attemptedAt: new Date(Date.UTC(2026, 11, 7, 10, 0, i)).toISOString(),
      });
    }
    const first = await getWebhookDeliveries({ deliveries: log }, { organizationId: org, endpointId });
    expect(first.deliveries).toHaveLength(50);
    expect(first.deliveries[0]).toEqual({
      eventId: 'e54',
      type: 'preference.changed',
      attempt: 1,
      statusCode: null,
      durationMs: 3,
      attemptedAt: '2026-12-07T10:00:54.000Z',
    });
    const second = await getWebhookDeliveries(
      { deliveries: log },
      { organizationId: org, endpointId, cursor: first.nextCursor as string },
    );
    expect(second.deliveries.map(({ eventId }) => eventId)).toEqual(['e4', 'e3', 'e2', 'e1', 'e0']);
    expect(second.nextCursor).toBeUndefined();
    for (const cursor of ['x', Buffer.from('H#org#user').toString('base64url'), `${first.nextCursor}=`]) {
      const error = await rejection(
        getWebhookDeliveries({ deliveries: log }, { organizationId: org, endpointId, cursor }),
      );
      expect(error.status).toBe('INVALID_ARGUMENT');
    }
  });
});
