import { CHANNELS } from '#shared/api/channels.js';
import { apiEvidence, storeConsentText } from '#shared/consent/consent.js';
import type { Evidence } from '#shared/consent/evidence.js';
import type { ConsentTextStore } from '#shared/consent/text-store.js';
import { REQUEST_WRITE_CONCURRENCY } from './batching.js';
import { type WriteOptions, writeEntries } from './entry-writes.js';
import type { ResetConfigRequest, ResetConfigResult } from './routes/reset-config.js';
import type { PreferenceStore } from './store.js';

export interface ResetConfigDeps {
  store: PreferenceStore;
  now?: () => Date;
  concurrency?: number;
  /** `link` for a change made from a link in an email (the actor is then `link:<keyId>`). */
  cause?: 'link';
  /** How a person made the change from a link; without it, the API's evidence of `data.consent`. */
  evidence?: Evidence | undefined;
  /** Where a consent's text is stored; needed when a request states one. */
  texts?: ConsentTextStore | undefined;
}

/**
 * Removes the named channels (all three by default) from each named entry's layer (the request's
 * category's, or the all-categories one), so that config/get
 * answers them from the next layer; an entry left with no channel is gone to readers (a
 * document-level one is kept as a tombstone for migrations: tombstone.ts). Resetting what
 * is not stored succeeds. Same per-user answer, 503 rule and deadline handling as config/set,
 * and the same time stamp: a late reset cannot remove a value set by a newer request.
 */
export const resetConfig = async (
  { store, now = () => new Date(), concurrency = REQUEST_WRITE_CONCURRENCY, cause, evidence, texts }: ResetConfigDeps,
  request: ResetConfigRequest,
  apiKey: string,
  { signal }: WriteOptions = {},
): Promise<ResetConfigResult> => {
  const { category } = request;
  const requestTime = now();
  const meta = {
    updatedAt: requestTime.toISOString(),
    updatedBy: apiKey,
    ...(cause ? { cause } : {}),
    ...(category === undefined ? {} : { category }),
    evidence: evidence ?? apiEvidence(request.consent, requestTime),
  };
  const channels = request.channels ?? CHANNELS;
  return writeEntries({
    ...request,
    concurrency,
    signal,
    first: () => storeConsentText(texts, request.organizationId, request.consent, requestTime),
    write: (key) => store.resetChannels(key, channels, meta, { signal }),
    messages: {
      operation: 'reset',
      done: 'Config reset.',
      failed: 'Config could not be reset; retry the request.',
      couldNot: 'could not be reset',
    },
  });
};
