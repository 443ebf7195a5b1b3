import * as z from 'zod/mini';
import type { KeyringSource } from '#shared/links/keyring.js';
import { logger } from '#shared/platform/logger.js';
import { AddressRefused, checkedAddresses, type Resolver, urlProblem } from './address.js';
import {
  ALL_EVENT_TYPES,
  eventTypeOf,
  FAILING_DISABLE_DAYS,
  MAX_DELAY_SECONDS,
  RETRY_SCHEDULE_SECONDS,
  type StoredEndpoint,
  type WebhookEventType,
} from './model.js';
import { openSecret, sealedUnderOlderKey, sealSecret, signatureHeader } from './secrets.js';
import type { Sender, SendResult } from './send.js';
import type { DeliveryLog, WebhookStore } from './store.js';

/*
 * The dispatcher (docs/api.md, Webhooks): one queue carries the bus's events (an EventBridge rule
 * sends them, in EventBridge's shape) and the next attempts of failed deliveries (this module
 * queues them, delayed). An event reaches each enabled endpoint of its organization that
 * subscribes to its type; an attempt that fails queues the next one after the schedule's delay.
 * SQS delays a message at most 15 minutes: a longer wait is carried by the message's due time,
 * and a message received before it goes back on the queue for the rest, in hops.
 */

/** What a delivery carries: the event, as the body and the headers show it. */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  /** When the event happened (ISO-8601). */
  timestamp: string;
  data: Record<string, unknown>;
}

const eventSchema = z.object({
  id: z.string().check(z.minLength(1)),
  type: z.enum(ALL_EVENT_TYPES),
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
});

/** A later attempt, queued by the dispatcher. */
export const retryMessage = z.object({
  webhook: z.object({
    organizationId: z.string(),
    endpointId: z.string(),
    attempt: z.int().check(z.minimum(2)),
    /** Epoch ms from which it is due. */
    dueAt: z.number(),
    event: eventSchema,
  }),
});
export type RetryMessage = z.infer<typeof retryMessage>;

/** An event of the bus, as EventBridge puts it on a queue (the fields read here). */
export const busEventMessage = z.object({
  'detail-type': z.string(),
  time: z.optional(z.string()),
  detail: z.looseObject({ id: z.string().check(z.minLength(1)), organizationId: z.optional(z.unknown()) }),
});
export type BusEventMessage = z.infer<typeof busEventMessage>;

export const dispatcherMessage = z.union([retryMessage, busEventMessage]);
export type DispatcherMessage = z.infer<typeof dispatcherMessage>;

/** Where the next attempts go: the webhooks queue. */
export interface RetryQueue {
  send(message: RetryMessage, delaySeconds: number): Promise<void>;
}

export interface DispatcherDeps {
  endpoints: Pick<WebhookStore, 'get' | 'markFailing' | 'clearFailing' | 'disable' | 'reseal'>;
  deliveries: Pick<DeliveryLog, 'record'>;
  retries: RetryQueue;
  keys: KeyringSource;
  send: Sender;
  allowLoopback: boolean;
  resolve?: Resolver;
  /** The delays before attempts 2, 3, ... in seconds (tests compress it). */
  schedule?: readonly number[];
  now?: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const isDelivered = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** Sends to the endpoint's checked address; an address refused (now private, or unresolvable) is no answer. */
const sendChecked = async (
  deps: DispatcherDeps,
  endpoint: StoredEndpoint,
  headers: Record<string, string>,
  body: string,
): Promise<SendResult> => {
  const url = new URL(endpoint.url);
  if (urlProblem(endpoint.url, deps.allowLoopback)) return { statusCode: null, durationMs: 0 };
  try {
    const addresses = await checkedAddresses(url, {
      allowLoopback: deps.allowLoopback,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
    // IPv4 first: a Lambda function outside a VPC has no IPv6 route out.
    const target = addresses.find(({ family }) => family === 4) ?? addresses[0];
    if (!target) return { statusCode: null, durationMs: 0 };
    return await deps.send({ url, address: target.address, family: target.family }, headers, body);
  } catch (error) {
    if (!(error instanceof AddressRefused)) throw error;
    logger.warn('Webhook address refused', { endpointId: endpoint.id, reason: error.message });
    return { statusCode: null, durationMs: 0 };
  }
};

/**
 * The endpoint's secrets in clear: the current one, and the replaced one while it still signs.
 * One sealed under a link key that is no longer current is sealed again under the current key,
 * so that retiring the old link key (docs/operations.md, Link keys) leaves it readable.
 */
const secretsOf = async (
  deps: DispatcherDeps,
  organizationId: string,
  endpoint: StoredEndpoint,
  now: Date,
): Promise<string[]> => {
  const keyring = await deps.keys.keyring();
  const fields: ('secret' | 'previousSecret')[] = ['secret'];
  if (endpoint.previousSecret && endpoint.previousUntil && Date.parse(endpoint.previousUntil) > now.getTime()) {
    fields.push('previousSecret');
  }
  const secrets: string[] = [];
  for (const field of fields) {
    const sealed = endpoint[field] as string;
    const secret = openSecret(sealed, organizationId, endpoint.id, keyring);
    if (sealedUnderOlderKey(sealed, keyring)) {
      await deps.endpoints.reseal(
        organizationId,
        endpoint.id,
        field,
        sealed,
        sealSecret(secret, organizationId, endpoint.id, keyring),
      );
    }
    secrets.push(secret);
  }
  return secrets;
};

/** One attempt: signed, sent, recorded; then the endpoint's state and the next attempt, if any. */
const attempt = async (
  deps: DispatcherDeps,
  organizationId: string,
  endpoint: StoredEndpoint,
  event: WebhookEvent,
  number: number,
): Promise<void> => {
  const now = (deps.now ?? (() => new Date()))();
  const secrets = await secretsOf(deps, organizationId, endpoint, now);
  const body = JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'notification-preferences-webhooks',
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, event.id, timestamp, body),
  };
  const { statusCode, durationMs } = await sendChecked(deps, endpoint, headers, body);
  const schedule = deps.schedule ?? RETRY_SCHEDULE_SECONDS;
  const delivered = isDelivered(statusCode);
  const gone = statusCode === 410;
  const delaySeconds = delivered || gone ? undefined : schedule[number - 1];
  const attemptedAt = now.toISOString();
  await deps.deliveries.record(organizationId, endpoint.id, {
    eventId: event.id,
    type: event.type,
    attempt: number,
    statusCode,
    durationMs,
    attemptedAt,
    ...(delaySeconds === undefined
      ? {}
      : { nextAttemptAt: new Date(now.getTime() + delaySeconds * 1000).toISOString() }),
  });
  if (delivered) {
    if (endpoint.failingSince) await deps.endpoints.clearFailing(organizationId, endpoint.id);
    return;
  }
  if (gone) {
    logger.info('Webhook endpoint disabled: it answered 410 Gone', { endpointId: endpoint.id });
    await deps.endpoints.disable(organizationId, endpoint.id, 'gone');
    return;
  }
  if (delaySeconds !== undefined) {
    const webhook = { organizationId, endpointId: endpoint.id, attempt: number + 1, event };
    await deps.retries.send(
      { webhook: { ...webhook, dueAt: now.getTime() + delaySeconds * 1000 } },
      Math.min(delaySeconds, MAX_DELAY_SECONDS),
    );
  } else {
    logger.warn('Webhook event dropped after its last attempt', { endpointId: endpoint.id, eventId: event.id });
  }
  if (!endpoint.failingSince) {
    await deps.endpoints.markFailing(organizationId, endpoint.id, attemptedAt);
  } else if (now.getTime() - Date.parse(endpoint.failingSince) >= FAILING_DISABLE_DAYS * DAY_MS) {
    logger.info('Webhook endpoint disabled: every attempt failed for 5 days', { endpointId: endpoint.id });
    await deps.endpoints.disable(organizationId, endpoint.id, 'failing');
  }
};

/** Runs every attempt, then throws the first failure (the message is received again; deliveries are at least once). */
const settleAll = async (work: Promise<void>[]): Promise<void> => {
  const failed = (await Promise.allSettled(work)).find((result) => result.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
};

/** One message of the webhooks queue. */
export const dispatch = async (deps: DispatcherDeps, message: DispatcherMessage): Promise<void> => {
  const now = (deps.now ?? (() => new Date()))();
  if ('webhook' in message) {
    const { webhook } = message;
    const waitMs = webhook.dueAt - now.getTime();
    if (waitMs > 1000) {
      await deps.retries.send(message, Math.min(Math.ceil(waitMs / 1000), MAX_DELAY_SECONDS));
      return;
    }
    const endpoint = (await deps.endpoints.get(webhook.organizationId)).endpoints.find(
      ({ id }) => id === webhook.endpointId,
    );
    // Removed, disabled or no longer subscribed since: the event is no longer for it.
    if (!endpoint || endpoint.disabled || !endpoint.eventTypes.includes(webhook.event.type)) return;
    await attempt(deps, webhook.organizationId, endpoint, webhook.event, webhook.attempt);
    return;
  }
  const type = eventTypeOf(message['detail-type']);
  const { organizationId } = message.detail;
  if (!type || typeof organizationId !== 'string') return;
  const targets = (await deps.endpoints.get(organizationId)).endpoints.filter(
    (endpoint) => !endpoint.disabled && endpoint.eventTypes.includes(type),
  );
  if (targets.length === 0) return;
  const event: WebhookEvent = {
    id: message.detail.id,
    type,
    timestamp: message.time ?? now.toISOString(),
    data: message.detail,
  };
  await settleAll(targets.map((endpoint) => attempt(deps, organizationId, endpoint, event, 1)));
};
