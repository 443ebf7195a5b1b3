import type { FullChannelConfig } from '#shared/api/channels.js';
import { distinct } from '#shared/api/identifiers.js';
import { apiEvidence, storeConsentText } from '#shared/consent/consent.js';
import type { Evidence } from '#shared/consent/evidence.js';
import type { ConsentTextStore } from '#shared/consent/text-store.js';
import { REQUEST_WRITE_CONCURRENCY } from './batching.js';
import { type UserSetResult, type WriteOptions, writeEntries } from './entry-writes.js';
import { categoryConfigs } from './layers.js';
import { assertUnlocked, type PolicySource, policyOf, readWithPolicy } from './locks.js';
import { type EntryKey, type StoredEntry, scopeOf } from './model.js';
import { resolveChannels, traceOf } from './resolution.js';
import type { ConfigView, GetConfigRequest } from './routes/get-config.js';
import type { SetConfigRequest } from './routes/set-config.js';
import { entryId, type PreferenceStore } from './store.js';

export type { UserSetResult, WriteOptions } from './entry-writes.js';

export interface SetConfigDeps {
  store: PreferenceStore;
  now?: () => Date;
  concurrency?: number;
  /** `link` for a change made from a link in an email (the actor is then `link:<keyId>`). */
  cause?: 'link';
  /** The organization's policy, for its locks; without it nothing is locked. */
  policies?: PolicySource | undefined;
  /** How a person made the change from a link; without it, the API's evidence of `data.consent`. */
  evidence?: Evidence | undefined;
  /** Where a consent's text is stored; needed when a request states one. */
  texts?: ConsentTextStore | undefined;
}

/**
 * docs/api.md, config/set: one entry per (user, document), or the organization-level entry per user
 * when no documents are named; failures and the deadline as writeEntries says. Every write
 * carries the request's start time, so a write that lands late cannot undo a newer one.
 */
export const setConfig = async (
  {
    store,
    now = () => new Date(),
    concurrency = REQUEST_WRITE_CONCURRENCY,
    cause,
    policies,
    evidence,
    texts,
  }: SetConfigDeps,
  request: SetConfigRequest,
  apiKey: string,
  { signal }: WriteOptions = {},
): Promise<Record<string, UserSetResult>> => {
  const { category } = request;
  const requestTime = now();
  // A consent stated wrongly, or a channel the organization locked, is refused before anything is written.
  const stated = evidence ?? apiEvidence(request.consent, requestTime);
  assertUnlocked(await policyOf(policies, request.organizationId), request.config, category);
  const meta = {
    updatedAt: requestTime.toISOString(),
    updatedBy: apiKey,
    ...(cause ? { cause } : {}),
    ...(category === undefined ? {} : { category }),
    evidence: stated,
  };
  return writeEntries({
    ...request,
    concurrency,
    signal,
    first: () => storeConsentText(texts, request.organizationId, request.consent, requestTime),
    write: (key) => store.setChannels(key, request.config, meta, { signal }),
    messages: {
      operation: 'set',
      done: 'Config set.',
      failed: 'Config could not be saved; retry the request.',
      couldNot: 'could not be saved',
    },
  });
};

export interface GetConfigDeps {
  store: PreferenceStore;
  defaults: FullChannelConfig;
  /** The organization's policy (shared/policy/reader.ts); without it, no policy applies. */
  policies?: PolicySource | undefined;
}

/**
 * docs/api.md, config/get: one item per requested document, or the organization-level item, each
 * resolved as config/resolve resolves it (resolution.ts). One batched read, the organization's
 * policy in it unless this instance holds it.
 */
export const getConfig = async (
  { store, defaults, policies }: GetConfigDeps,
  request: GetConfigRequest,
): Promise<ConfigView[]> => {
  const { organizationId, userId, category, explain } = request;
  const organizationKey: EntryKey = { organizationId, userId, documentId: null };
  const documentKeys: EntryKey[] = (request.documentIds ? distinct(request.documentIds) : []).map((documentId) => ({
    organizationId,
    userId,
    documentId,
  }));
  const keys = [...documentKeys, organizationKey];
  const { read: entries, policy } = await readWithPolicy(policies, organizationId, {
    alone: () => store.getEntries(keys),
    along: () => store.getEntriesWithPolicy(keys, organizationId),
  });
  const found = new Map(entries.map((e) => [entryId(e), e]));
  const organization = found.get(entryId(organizationKey));

  const view = (key: EntryKey, entry: StoredEntry | undefined, document: StoredEntry | undefined): ConfigView => {
    const input = { document, organization, policy, category, defaults };
    return {
      userId,
      documentId: key.documentId,
      scope: scopeOf(key.documentId),
      config: entry?.config ?? {},
      categories: categoryConfigs(entry?.categories),
      ...resolveChannels(input),
      ...(explain ? { trace: traceOf(input) } : {}),
    };
  };
  if (documentKeys.length === 0) return [view(organizationKey, organization, undefined)];
  return documentKeys.map((key) => {
    const document = found.get(entryId(key));
    return view(key, document, document);
  });
};
