import type { StoreAccess } from '#shared/platform/route.js';
import type { DeliveryAttempt, DisabledReason, StoredEndpoint } from './model.js';

/** An organization's endpoints as stored (keys.ts), in the order set gave them. */
export interface StoredWebhooks {
  endpoints: StoredEndpoint[];
  /** Grows by one with each set: a set stores only over the version it read. */
  version: number;
}

/** Thrown when another set stored the endpoints between this set's read and its write. */
export class WebhooksChanged extends Error {
  override readonly name = 'WebhooksChanged';
}

/** Where endpoints are kept (the config table: keys.ts). */
export interface WebhookStore {
  get(organizationId: string): Promise<StoredWebhooks>;
  /** Replaces the list, if still at `expectedVersion` (else WebhooksChanged). */
  put(
    organizationId: string,
    endpoints: readonly StoredEndpoint[],
    meta: { updatedAt: string; updatedBy: string },
    expectedVersion: number,
  ): Promise<void>;
  /** Replaces an endpoint's secret if it is still `current`, keeping `current` beside it until `until`; false if not. */
  rotate(organizationId: string, endpointId: string, current: string, next: string, until: string): Promise<boolean>;
  /**
   * Replaces a sealed secret by the same secret sealed under the current link key, if it is still
   * `sealed` (a rotation meanwhile wins).
   */
  reseal(
    organizationId: string,
    endpointId: string,
    field: 'secret' | 'previousSecret',
    sealed: string,
    next: string,
  ): Promise<void>;
  /** Records the first failure of a run of failures (kept if one is recorded already). */
  markFailing(organizationId: string, endpointId: string, since: string): Promise<void>;
  clearFailing(organizationId: string, endpointId: string): Promise<void>;
  disable(organizationId: string, endpointId: string, reason: DisabledReason): Promise<void>;
}

/** Where attempts are recorded (the history table: keys.ts), each for 30 days. */
export interface DeliveryLog {
  record(organizationId: string, endpointId: string, attempt: DeliveryAttempt): Promise<void>;
  /** Newest first; `after` a sort key of an earlier page. */
  list(
    organizationId: string,
    endpointId: string,
    limit: number,
    after?: string,
  ): Promise<{ deliveries: DeliveryAttempt[]; last?: string }>;
}

/** What each operation of the DynamoDB stores sends (shared/preferences/store-grants.ts says why). */
export const WEBHOOK_STORE_GRANTS = {
  get: { tables: { config: ['GetItem'] } },
  put: { tables: { config: ['PutItem'] } },
  rotate: { tables: { config: ['UpdateItem'] } },
  reseal: { tables: { config: ['UpdateItem'] } },
  markFailing: { tables: { config: ['UpdateItem'] } },
  clearFailing: { tables: { config: ['UpdateItem'] } },
  disable: { tables: { config: ['UpdateItem'] } },
} as const satisfies Record<keyof WebhookStore, StoreAccess>;

export const DELIVERY_LOG_GRANTS = {
  record: { tables: { history: ['PutItem'] } },
  list: { tables: { history: ['Query'] } },
} as const satisfies Record<keyof DeliveryLog, StoreAccess>;
