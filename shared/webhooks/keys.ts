import { createHash } from 'node:crypto';
import { escapeKeyPart } from '#shared/platform/key-parts.js';

/*
 * Where webhooks live:
 *
 *   endpoints   config table    pk = WEBHOOKS#<org>                sk = WEBHOOKS
 *   deliveries  history table   pk = WEBHOOK#<org>#<endpointId>    sk = <attemptedAt>#<event hash>#<attempt>
 *
 * An organization's endpoints are one item beside its policy (shared/policy/keys.ts): no entry's
 * partition starts with `WEBHOOKS#`, and the item carries no `userId`, so neither the index of a
 * user's entries nor the change publisher's filters (shared/events/publisher.ts) ever see it.
 * The endpoints are a map by id, so that the dispatcher updates one endpoint's state without
 * reading the others. Deliveries sit in the history table, which keeps items for a time and
 * has no stream; no change's partition starts with `WEBHOOK#` (theirs start `H#`), and they
 * carry no `entryPk`, so its index never holds them. An endpoint id is the service's own
 * (base64url), so it needs no escaping. The event id in the sort key is hashed: its length is
 * the event's, unbounded, and the key's must not be.
 */

export const WEBHOOKS_SK = 'WEBHOOKS';
export const webhooksKey = (organizationId: string) => ({
  pk: `WEBHOOKS#${escapeKeyPart(organizationId)}`,
  sk: WEBHOOKS_SK,
});

export const deliveriesPartition = (organizationId: string, endpointId: string): string =>
  `WEBHOOK#${escapeKeyPart(organizationId)}#${endpointId}`;

/** Newest first with a backward Query: the time, then what makes two attempts of one millisecond distinct. */
export const deliverySortKey = (attemptedAt: string, eventId: string, attempt: number): string =>
  `${attemptedAt}#${createHash('sha256').update(eventId).digest('base64url').slice(0, 22)}#${String(attempt).padStart(2, '0')}`;

/** The shape of every sort key deliverySortKey writes (a cursor must name one). */
export const DELIVERY_SORT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9_-]{22}#\d{2}$/;
