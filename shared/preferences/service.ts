import { CHANNELS, type Channel, type DeliverySetting, type FullChannelConfig } from '#shared/api/channels.js';
import { distinct } from '#shared/api/identifiers.js';
import { type UserSetResult, WRITE_CONCURRENCY, type WriteOptions, writeEntries } from './entry-writes.js';
import type { EntryKey, StoredEntry } from './model.js';
import type { ConfigSource } from './results.js';
import type { ConfigView, GetConfigRequest } from './routes/get-config.js';
import type { SetConfigRequest } from './routes/set-config.js';
import { entryId, type PreferenceStore } from './store.js';

export type { UserSetResult, WriteOptions } from './entry-writes.js';
export { WRITE_CONCURRENCY } from './entry-writes.js';

export interface SetConfigDeps {
  store: PreferenceStore;
  now?: () => Date;
  concurrency?: number;
  /** `link` for a change made from a link in an email (the actor is then `link:<keyId>`). */
  cause?: 'link';
}

/**
 * docs/api.md, config/set: one entry per (user, document), or the organization-level entry per user
 * when no documents are named; failures and the deadline as writeEntries says. Every write
 * carries the request's start time, so a write that lands late cannot undo a newer one.
 */
export const setConfig = async (
  { store, now = () => new Date(), concurrency = WRITE_CONCURRENCY, cause }: SetConfigDeps,
  request: SetConfigRequest,
  apiKey: string,
  { signal }: WriteOptions = {},
): Promise<Record<string, UserSetResult>> => {
  const meta = { updatedAt: now().toISOString(), updatedBy: apiKey, ...(cause ? { cause } : {}) };
  return writeEntries({
    ...request,
    concurrency,
    signal,
    write: (key) => store.setChannels(key, request.config, meta, { signal }),
    writeBatch: (keys) => store.setChannelsBatch(keys, request.config, meta, { signal }),
    messages: {
      operation: 'set',
      done: 'Config set.',
      failed: 'Config could not be saved; retry the request.',
      couldNot: 'could not be saved',
    },
  });
};

/** Resolves each channel: document entry, then organization entry, then deployment default. */
export const resolveEffective = (
  layers: { document?: StoredEntry | undefined; organization?: StoredEntry | undefined },
  defaults: FullChannelConfig,
): Pick<ConfigView, 'effective' | 'source'> => {
  const effective = {} as Record<Channel, DeliverySetting>;
  const source = {} as Record<Channel, ConfigSource>;
  for (const channel of CHANNELS) {
    const fromDocument = layers.document?.config[channel];
    const fromOrganization = layers.organization?.config[channel];
    if (fromDocument) {
      effective[channel] = fromDocument;
      source[channel] = 'document';
    } else if (fromOrganization) {
      effective[channel] = fromOrganization;
      source[channel] = 'organization';
    } else {
      effective[channel] = defaults[channel];
      source[channel] = 'default';
    }
  }
  return { effective, source };
};

export interface GetConfigDeps {
  store: PreferenceStore;
  defaults: FullChannelConfig;
}

/** docs/api.md, config/get: one item per requested document, or the organization-level item. One batched read. */
export const getConfig = async (
  { store, defaults }: GetConfigDeps,
  request: GetConfigRequest,
): Promise<ConfigView[]> => {
  const { organizationId, userId } = request;
  const organizationKey: EntryKey = { organizationId, userId, documentId: null };
  const documentKeys: EntryKey[] = (request.documentIds ? distinct(request.documentIds) : []).map((documentId) => ({
    organizationId,
    userId,
    documentId,
  }));
  const found = new Map((await store.getEntries([...documentKeys, organizationKey])).map((e) => [entryId(e), e]));
  const organization = found.get(entryId(organizationKey));

  if (documentKeys.length === 0) {
    return [
      {
        userId,
        documentId: null,
        scope: 'organization',
        config: organization?.config ?? {},
        ...resolveEffective({ organization }, defaults),
      },
    ];
  }
  return documentKeys.map((key) => {
    const document = found.get(entryId(key));
    return {
      userId,
      documentId: key.documentId,
      scope: 'document',
      config: document?.config ?? {},
      ...resolveEffective({ document, organization }, defaults),
    };
  });
};
