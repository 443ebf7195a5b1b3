import { ApiError } from '#shared/api/errors.js';
import type { KeyringSource } from '#shared/links/keyring.js';
import { AddressRefused, checkedAddresses, type Resolver, urlProblem } from './address.js';
import { DELIVERY_SORT_KEY } from './keys.js';
import {
  ALL_EVENT_TYPES,
  DELIVERIES_PAGE_SIZE,
  type EndpointView,
  PREVIOUS_SECRET_HOURS,
  type StoredEndpoint,
  type WebhookEventType,
} from './model.js';
import type { GetWebhookDeliveriesRequest, GetWebhookDeliveriesResult } from './routes/get-webhook-deliveries.js';
import type { GetWebhooksRequest, GetWebhooksResult } from './routes/get-webhooks.js';
import type { RotateWebhookSecretRequest, RotateWebhookSecretResult } from './routes/rotate-webhook-secret.js';
import type { SetWebhooksRequest, SetWebhooksResult } from './routes/set-webhooks.js';
import { newEndpointId } from './schema.js';
import { newSecret, sealSecret } from './secrets.js';
import { type DeliveryLog, type WebhookStore, WebhooksChanged } from './store.js';

export interface WebhookRouteDeps {
  store: WebhookStore;
  keys: KeyringSource;
  /** Locally, http to loopback hosts is allowed (the twin's receivers); never deployed. */
  allowLoopback: boolean;
  resolve?: Resolver;
  now?: () => Date;
}

export const viewOf = ({
  id,
  url,
  eventTypes,
  description,
  disabled,
  disabledReason,
}: StoredEndpoint): EndpointView => ({
  id,
  url,
  eventTypes,
  ...(description === undefined ? {} : { description }),
  disabled,
  ...(disabled && disabledReason ? { disabledReason } : {}),
});

/** The types in the documented order, each once (none given: all). */
const normalTypes = (types: readonly string[] | undefined): WebhookEventType[] =>
  types === undefined ? [...ALL_EVENT_TYPES] : ALL_EVENT_TYPES.filter((type) => types.includes(type));

/** Refuses, naming the field, a URL the service would never call (docs/api.md, Webhooks). */
const assertCallable = async (url: string, field: string, deps: WebhookRouteDeps): Promise<void> => {
  const problem = urlProblem(url, deps.allowLoopback);
  if (problem) throw new ApiError('INVALID_ARGUMENT', `${field} ${problem}`);
  try {
    await checkedAddresses(new URL(url), {
      allowLoopback: deps.allowLoopback,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
  } catch (error) {
    if (error instanceof AddressRefused) throw new ApiError('INVALID_ARGUMENT', `${field}: ${error.message}`);
    throw error;
  }
};

/**
 * docs/api.md, webhooks/set: replaces the organization's endpoints. An endpoint named by its id
 * keeps its secret (and its run of failures, unless it is enabled again); one without an id is
 * new, and its secret is answered this once.
 */
export const setWebhooks = async (
  deps: WebhookRouteDeps,
  { organizationId, endpoints }: SetWebhooksRequest,
  apiKey: string,
): Promise<SetWebhooksResult> => {
  const ids = endpoints.flatMap(({ id }) => (id === undefined ? [] : [id]));
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated) throw new ApiError('INVALID_ARGUMENT', `endpoints name the id ${repeated} more than once`);
  for (const [index, endpoint] of endpoints.entries())
    await assertCallable(endpoint.url, `endpoints[${index}].url`, deps);
  const stored = await deps.store.get(organizationId);
  const known = new Map(stored.endpoints.map((endpoint) => [endpoint.id, endpoint]));
  for (const [index, { id }] of endpoints.entries()) {
    if (id !== undefined && !known.has(id)) {
      throw new ApiError(
        'INVALID_ARGUMENT',
        `endpoints[${index}].id: no endpoint ${id} in this organization (omit the id for a new one)`,
      );
    }
  }
  const now = (deps.now ?? (() => new Date()))().toISOString();
  const keyring = endpoints.some(({ id }) => id === undefined) ? await deps.keys.keyring() : undefined;
  const secrets = new Map<string, string>();
  const next = endpoints.map((input): StoredEndpoint => {
    const kept = input.id === undefined ? undefined : known.get(input.id);
    const disabled = input.disabled ?? false;
    const base = {
      url: input.url,
      eventTypes: normalTypes(input.eventTypes),
      ...(input.description === undefined ? {} : { description: input.description }),
      disabled,
    };
    if (kept) {
      return {
        id: kept.id,
        createdAt: kept.createdAt,
        secret: kept.secret,
        ...(kept.previousSecret ? { previousSecret: kept.previousSecret, previousUntil: kept.previousUntil } : {}),
        ...base,
        // A disabled endpoint keeps the reason the service gave; one enabled again starts afresh.
        ...(disabled ? { disabledReason: (kept.disabled && kept.disabledReason) || 'requested' } : {}),
        // A run of failures goes on while the endpoint stays enabled at the same URL.
        ...(!disabled && !kept.disabled && kept.url === input.url && kept.failingSince
          ? { failingSince: kept.failingSince }
          : {}),
      } as StoredEndpoint;
    }
    const id = newEndpointId();
    const secret = newSecret();
    secrets.set(id, secret);
    return {
      id,
      ...base,
      ...(disabled ? { disabledReason: 'requested' as const } : {}),
      createdAt: now,
      secret: sealSecret(secret, organizationId, id, keyring as NonNullable<typeof keyring>),
    };
  });
  try {
    await deps.store.put(organizationId, next, { updatedAt: now, updatedBy: apiKey }, stored.version);
  } catch (error) {
    if (error instanceof WebhooksChanged) {
      throw new ApiError('ABORTED', 'The endpoints changed while this set ran: read them again, and set them again.');
    }
    throw error;
  }
  return {
    endpoints: next.map((endpoint) => {
      const secret = secrets.get(endpoint.id);
      return { ...viewOf(endpoint), ...(secret === undefined ? {} : { secret }) };
    }),
  };
};

export const getWebhooks = async (
  { store }: Pick<WebhookRouteDeps, 'store'>,
  { organizationId }: GetWebhooksRequest,
): Promise<GetWebhooksResult> => ({ endpoints: (await store.get(organizationId)).endpoints.map(viewOf) });

const unknownEndpoint = (endpointId: string) =>
  new ApiError('NOT_FOUND', `No webhook endpoint ${endpointId} in this organization.`);

/** docs/api.md, webhooks/rotate-secret: a new secret; the replaced one signs beside it for 24 hours. */
export const rotateWebhookSecret = async (
  deps: Pick<WebhookRouteDeps, 'store' | 'keys' | 'now'>,
  { organizationId, endpointId }: RotateWebhookSecretRequest,
): Promise<RotateWebhookSecretResult> => {
  const endpoint = (await deps.store.get(organizationId)).endpoints.find(({ id }) => id === endpointId);
  if (!endpoint) throw unknownEndpoint(endpointId);
  const secret = newSecret();
  const sealed = sealSecret(secret, organizationId, endpointId, await deps.keys.keyring());
  const now = (deps.now ?? (() => new Date()))();
  const until = new Date(now.getTime() + PREVIOUS_SECRET_HOURS * 3_600_000).toISOString();
  if (!(await deps.store.rotate(organizationId, endpointId, endpoint.secret, sealed, until))) {
    const still = (await deps.store.get(organizationId)).endpoints.some(({ id }) => id === endpointId);
    if (!still) throw unknownEndpoint(endpointId);
    throw new ApiError(
      'ABORTED',
      'The secret was rotated meanwhile by another request: rotate again if you need a new one.',
    );
  }
  return { secret };
};

export const INVALID_DELIVERIES_CURSOR = 'cursor is not valid for this request; start again without it.';

/** docs/api.md, webhooks/deliveries: the endpoint's attempts of the last 30 days, newest first. */
export const getWebhookDeliveries = async (
  { deliveries }: { deliveries: DeliveryLog },
  { organizationId, endpointId, cursor }: GetWebhookDeliveriesRequest,
): Promise<GetWebhookDeliveriesResult> => {
  let after: string | undefined;
  if (cursor !== undefined) {
    after = Buffer.from(cursor, 'base64url').toString('utf8');
    if (!DELIVERY_SORT_KEY.test(after) || Buffer.from(after).toString('base64url') !== cursor) {
      throw new ApiError('INVALID_ARGUMENT', INVALID_DELIVERIES_CURSOR);
    }
  }
  const page = await deliveries.list(organizationId, endpointId, DELIVERIES_PAGE_SIZE, after);
  return {
    deliveries: page.deliveries,
    ...(page.last === undefined ? {} : { nextCursor: Buffer.from(page.last).toString('base64url') }),
  };
};
