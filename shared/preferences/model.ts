import * as z from 'zod/mini';
import { ENV, type EnvName, parseEnv } from '#shared/platform/environment.js';

export const CHANNELS = ['inbox', 'email', 'slack'] as const;
export type Channel = (typeof CHANNELS)[number];

export const DELIVERY_SETTINGS = ['ALL', 'MINE', 'NONE'] as const;
const ONE_OF_DELIVERY_SETTINGS = `one of ${DELIVERY_SETTINGS.join(', ')}`;
/** One schema for a channel's value wherever it is read: requests, the environment, CDK context. */
export const deliverySetting = z.enum(DELIVERY_SETTINGS, { error: `must be ${ONE_OF_DELIVERY_SETTINGS}` });
export type DeliverySetting = z.infer<typeof deliverySetting>;

/** A stored config: only the channels that were ever set. */
export type ChannelConfig = Partial<Record<Channel, DeliverySetting>>;
export type FullChannelConfig = Record<Channel, DeliverySetting>;

export type Scope = 'document' | 'organization';

/** Identifies one stored entry: a document-level one, or the organization-level one (documentId null). */
export interface EntryKey {
  organizationId: string;
  userId: string;
  documentId: string | null;
}

export interface StoredEntry extends EntryKey {
  scope: Scope;
  config: ChannelConfig;
  /** ISO-8601 time of the last write. */
  updatedAt: string;
  /** apiKey of the credential that made the last write (a migration keeps the source entry's). */
  updatedBy: string;
  /** Incremented on every write; conditional deletes compare it. */
  version: number;
  /**
   * Per channel, the time of the request that last wrote (set or reset) it: a write stamped
   * older than this does not replace it (a late write never undoes a newer one). Absent for
   * channels never written with a time (entries stored before these times existed).
   */
  channelAt?: Partial<Record<Channel, string>>;
}

export const scopeOf = (documentId: string | null): Scope => (documentId === null ? 'organization' : 'document');

/** Deployment defaults (docs/api.md, config/get), overridable per deployment through the environment. */
export const BUILT_IN_DEFAULTS: FullChannelConfig = { inbox: 'ALL', email: 'MINE', slack: 'NONE' };

const defaultFromEnv = (name: EnvName, fallback: DeliverySetting, env: NodeJS.ProcessEnv): DeliverySetting =>
  parseEnv(name, z._default(deliverySetting, fallback), ONE_OF_DELIVERY_SETTINGS, env);

export const defaultsFromEnv = (env: NodeJS.ProcessEnv = process.env): FullChannelConfig => ({
  inbox: defaultFromEnv(ENV.defaultInbox, BUILT_IN_DEFAULTS.inbox, env),
  email: defaultFromEnv(ENV.defaultEmail, BUILT_IN_DEFAULTS.email, env),
  slack: defaultFromEnv(ENV.defaultSlack, BUILT_IN_DEFAULTS.slack, env),
});
