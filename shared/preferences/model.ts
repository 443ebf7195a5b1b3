import { z } from 'zod';
import { ENV } from '#shared/settings.js';

export const CHANNELS = ['inbox', 'email', 'slack'] as const;
export type Channel = (typeof CHANNELS)[number];

export const DELIVERY_SETTINGS = ['ALL', 'MINE', 'NONE'] as const;
export const deliverySetting = z.enum(DELIVERY_SETTINGS);
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
}

export const scopeOf = (documentId: string | null): Scope => (documentId === null ? 'organization' : 'document');

/** Deployment defaults (contract 4.2), overridable per deployment through the environment. */
export const BUILT_IN_DEFAULTS: FullChannelConfig = { inbox: 'ALL', email: 'MINE', slack: 'NONE' };

export const defaultsFromEnv = (env: NodeJS.ProcessEnv = process.env): FullChannelConfig => ({
  inbox: deliverySetting.parse(env[ENV.defaultInbox] || BUILT_IN_DEFAULTS.inbox),
  email: deliverySetting.parse(env[ENV.defaultEmail] || BUILT_IN_DEFAULTS.email),
  slack: deliverySetting.parse(env[ENV.defaultSlack] || BUILT_IN_DEFAULTS.slack),
});
