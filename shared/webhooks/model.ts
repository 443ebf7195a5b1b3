import { DETAIL_TYPES } from '#shared/events/events.js';

/*
 * Webhooks (docs/api.md, Webhooks): each organization's HTTPS endpoints, which receive the events
 * of the bus signed as the Standard Webhooks specification says.
 */

/** The event types an endpoint subscribes to, and the bus's detail type behind each. */
export const WEBHOOK_EVENT_TYPES = {
  'preference.changed': DETAIL_TYPES.configChanged,
  'policy.changed': DETAIL_TYPES.policyChanged,
  'migration.completed': DETAIL_TYPES.migrationCompleted,
  'migration.failed': DETAIL_TYPES.migrationFailed,
  'user.erased': DETAIL_TYPES.userErased,
  // The jobs of bulk import and export (contract section 15) publish these detail types.
  'import.completed': 'Import Completed',
  'import.failed': 'Import Failed',
  'export.completed': 'Export Completed',
} as const;
export type WebhookEventType = keyof typeof WEBHOOK_EVENT_TYPES;
export const ALL_EVENT_TYPES = Object.keys(WEBHOOK_EVENT_TYPES) as [WebhookEventType, ...WebhookEventType[]];

const TYPE_OF_DETAIL = new Map<string, WebhookEventType>(
  Object.entries(WEBHOOK_EVENT_TYPES).map(([type, detailType]) => [detailType, type as WebhookEventType]),
);
/** The webhook type of a bus event's detail type, or undefined for one no endpoint can subscribe to. */
export const eventTypeOf = (detailType: string): WebhookEventType | undefined => TYPE_OF_DETAIL.get(detailType);

export const MAX_ENDPOINTS = 10;
export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;

/** Why the service stopped delivering to an endpoint: a set asked, a 410 Gone, or 5 days of failures. */
export const DISABLED_REASONS = ['requested', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** An endpoint as set and get answer it: never its secret. */
export interface EndpointView {
  id: string;
  url: string;
  eventTypes: WebhookEventType[];
  description?: string;
  disabled: boolean;
  disabledReason?: DisabledReason;
}

/** An endpoint as stored: its secrets sealed (secrets.ts), never in clear. */
export interface StoredEndpoint extends EndpointView {
  createdAt: string;
  /** The secret that signs, sealed. */
  secret: string;
  /** The secret a rotation replaced, sealed: it signs beside the new one until `previousUntil`. */
  previousSecret?: string;
  previousUntil?: string;
  /** Since when every attempt has failed (cleared by a delivered one). */
  failingSince?: string;
}

/** How long a replaced secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;
/** An endpoint whose attempts all failed this long is disabled. */
export const FAILING_DISABLE_DAYS = 5;

/**
 * The delays before each retry, in seconds: after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and
 * 10 h. With the first attempt, 8 in all, over a little more than a day.
 */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** SQS's longest DelaySeconds: a longer wait goes back on the queue in hops (dispatcher.ts). */
export const MAX_DELAY_SECONDS = 900;

/**
 * A message of the webhooks queue that fails this many times (a store or queue outage, not an
 * endpoint's failure: that is a delivery attempt, recorded and retried by the schedule) is dead-lettered.
 */
export const WEBHOOK_MAX_RECEIVE_COUNT = 5;

/** Deliveries (the attempts) are kept 30 days, then expire. */
export const DELIVERY_RETENTION_DAYS = 30;
export const DELIVERIES_PAGE_SIZE = 50;

/** One attempt, as webhooks/deliveries answers it. */
export interface DeliveryAttempt {
  eventId: string;
  type: WebhookEventType;
  attempt: number;
  /** null when no answer came (timeout, refused address, connection failure). */
  statusCode: number | null;
  durationMs: number;
  attemptedAt: string;
  nextAttemptAt?: string;
}
