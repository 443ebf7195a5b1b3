import {
  ALL_EVENT_TYPES,
  DELIVERIES_PAGE_SIZE,
  DELIVERY_RETENTION_DAYS,
  MAX_DESCRIPTION_LENGTH,
  MAX_ENDPOINTS,
  MAX_URL_LENGTH,
  PREVIOUS_SECRET_HOURS,
} from '#shared/webhooks/model.js';
import type { getWebhookDeliveriesRoute } from '#shared/webhooks/routes/get-webhook-deliveries.js';
import type { getWebhooksRoute } from '#shared/webhooks/routes/get-webhooks.js';
import type { rotateWebhookSecretRoute } from '#shared/webhooks/routes/rotate-webhook-secret.js';
import type { setWebhooksRoute } from '#shared/webhooks/routes/set-webhooks.js';
import { INVALID_DELIVERIES_CURSOR } from '#shared/webhooks/service.js';
import {
  BODY_RULE,
  COMMON_ERRORS,
  IDENTIFIER_RULE,
  type OperationDocs,
  TIME,
  withInvalidArgument,
  withNotFound,
} from './common.js';

const TAG = 'Webhooks';
const ENDPOINT = {
  id: 'ep_Q2x1ZTRoZWxwZXJz',
  url: 'https://hooks.example.com/notification-preferences',
  eventTypes: ['preference.changed', 'user.erased'] as ('preference.changed' | 'user.erased')[],
  description: 'CRM sync',
  disabled: false,
};
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/dB7+H6P4wQ=';

const ENDPOINT_FIELDS = {
  'endpoints[].id':
    'The endpoint id (made by the service): name it to keep an endpoint, its secret and its deliveries.',
  'endpoints[].eventTypes': `A subset of ${ALL_EVENT_TYPES.join(', ')}; omitted: all of them.`,
  'endpoints[].disabled': 'A disabled endpoint receives nothing.',
};

export const setWebhooksDocs: OperationDocs<typeof setWebhooksRoute> = {
  tag: TAG,
  name: 'SetWebhooks',
  summary: "Replace an organization's webhook endpoints",
  description: [
    "Replaces the organization's list of endpoints, which receive its events (docs/api.md, Webhooks) signed as",
    'the Standard Webhooks specification says. An endpoint named by its `id` keeps its secret; one without an id is',
    'new, and the answer carries its `secret` this once (`whsec_` and the base64 of 32 random bytes): no other',
    'answer shows it. An endpoint left out of the list is removed. `disabled: true` stops deliveries; omitted, the',
    'endpoint is enabled (an endpoint the service disabled, on a 410 or 5 days of failures, is enabled again by a',
    'set that names it without `disabled: true`).',
    '',
    'The URL is https; its host, and every address it resolves to, must be public: loopback, private,',
    'link-local, unique-local and cloud metadata addresses are refused (checked again before each delivery).',
    `Limits: at most ${MAX_ENDPOINTS} endpoints; \`url\` at most ${MAX_URL_LENGTH} characters, without a user`,
    `name or password; \`description\` at most ${MAX_DESCRIPTION_LENGTH} characters.`,
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: [
    ...withInvalidArgument(
      'Also a URL that is not https, names a private address or does not resolve, an `id` of no endpoint of the organization, or an id named twice.',
    ).filter((error) => error.status !== 'UNAVAILABLE'),
    { status: 'ABORTED', when: 'Another set changed the endpoints while this one ran: read them and set them again.' },
    ...COMMON_ERRORS.filter((error) => error.status === 'UNAVAILABLE'),
  ],
  examples: {
    create: {
      summary: 'One endpoint for preference changes and erasures',
      value: {
        organizationId: 'acme',
        endpoints: [{ url: ENDPOINT.url, eventTypes: ENDPOINT.eventTypes, description: ENDPOINT.description }],
      },
      result: { endpoints: [{ ...ENDPOINT, secret: SECRET }] },
    },
  },
  invalidExample: {
    summary: 'An http URL and an unknown event type',
    value: {
      organizationId: 'acme',
      endpoints: [{ url: 'http://hooks.example.com/', eventTypes: ['config.changed'] }],
    },
  },
  fields: {
    request: { ...ENDPOINT_FIELDS, 'endpoints[].url': 'https only; a public host.' },
    result: {
      ...ENDPOINT_FIELDS,
      'endpoints[].secret': 'A new endpoint only, this once: the secret that signs its deliveries.',
      'endpoints[].disabledReason':
        '`requested` (a set), `gone` (the endpoint answered 410), `failing` (every attempt failed for 5 days).',
    },
  },
};

export const getWebhooksDocs: OperationDocs<typeof getWebhooksRoute> = {
  tag: TAG,
  name: 'GetWebhooks',
  summary: "Read an organization's webhook endpoints",
  description: [
    'The endpoints as stored, in the order set gave them, each with its id, URL, event types and whether it is',
    'disabled (and why). Never a secret.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    endpoints: { summary: "acme's endpoints", value: { organizationId: 'acme' }, result: { endpoints: [ENDPOINT] } },
  },
  invalidExample: { summary: 'Missing organizationId', value: {} },
  fields: { result: ENDPOINT_FIELDS },
};

export const rotateWebhookSecretDocs: OperationDocs<typeof rotateWebhookSecretRoute> = {
  tag: TAG,
  name: 'RotateWebhookSecret',
  notRepeatable: { why: 'each rotation makes a new secret: a repeat replaces the one the first answered' },
  summary: "Replace a webhook endpoint's secret",
  description: [
    `Answers a new secret, this once. For ${PREVIOUS_SECRET_HOURS} hours the replaced one signs beside it (two`,
    'signatures in `webhook-signature`, space-separated), so that receivers can move to the new one without',
    'losing a delivery.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withNotFound('No endpoint of this organization has that id.'),
  examples: {
    rotate: {
      summary: 'A new secret for the CRM endpoint',
      value: { organizationId: 'acme', endpointId: ENDPOINT.id },
      result: { secret: 'whsec_3q2+7wAAAAB7H0lU4sGv0o2xqN1cQk5y6cKj7O8pZkU=' },
    },
  },
  invalidExample: { summary: 'An endpoint id of another shape', value: { organizationId: 'acme', endpointId: 'crm' } },
  fields: { result: { secret: 'The new secret.' } },
};

export const getWebhookDeliveriesDocs: OperationDocs<typeof getWebhookDeliveriesRoute> = {
  tag: TAG,
  name: 'WebhookDeliveries',
  summary: "A webhook endpoint's delivery attempts, newest first",
  description: [
    `Every attempt to deliver an event to the endpoint in the last ${DELIVERY_RETENTION_DAYS} days, newest first,`,
    `${DELIVERIES_PAGE_SIZE} a page: the event, its type, which attempt (1 to 8), the status code (null when no`,
    'answer came: a timeout, a refused address, a failed connection), how long it took and, when another attempt',
    'is planned, when. Pass `nextCursor` as `cursor` for the next page. The attempts of a removed endpoint stay',
    'readable until they expire.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withInvalidArgument(`Also a cursor this route did not answer: "${INVALID_DELIVERIES_CURSOR}"`),
  examples: {
    deliveries: {
      summary: 'A failed first attempt and its retry',
      value: { organizationId: 'acme', endpointId: ENDPOINT.id },
      result: {
        deliveries: [
          {
            eventId: '6c1f2b0e-3a5d-4f7e-9b8a-2d4c6e8f0a1b',
            type: 'preference.changed',
            attempt: 2,
            statusCode: 200,
            durationMs: 84,
            attemptedAt: '2026-11-22T09:00:07.310Z',
          },
          {
            eventId: '6c1f2b0e-3a5d-4f7e-9b8a-2d4c6e8f0a1b',
            type: 'preference.changed',
            attempt: 1,
            statusCode: 503,
            durationMs: 112,
            attemptedAt: '2026-11-22T09:00:02.120Z',
            nextAttemptAt: '2026-11-22T09:00:07.120Z',
          },
        ],
      },
    },
  },
  invalidExample: { summary: 'Missing endpointId', value: { organizationId: 'acme' } },
  fields: {
    result: {
      'deliveries[].statusCode': 'null when no answer came.',
      'deliveries[].attemptedAt': TIME,
      'deliveries[].nextAttemptAt': `${TIME} Present when another attempt is planned.`,
    },
  },
};
