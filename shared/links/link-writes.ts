import type { Channel } from '#shared/api/channels.js';
import type { LinkEvidence } from '#shared/consent/evidence.js';
import type { StoredPolicy } from '#shared/policy/model.js';
import { linkActor } from '#shared/preferences/change-attribution.js';
import type { ChannelConfig } from '#shared/preferences/model.js';
import { resetConfig } from '#shared/preferences/reset.js';
import { setConfig } from '#shared/preferences/service.js';
import type { PreferenceStore } from '#shared/preferences/store.js';
import type { OpenedLink } from './model.js';
import type { Target } from './targets.js';

/*
 * A change made from a link is a change like any other (docs/api.md, Links in emails): it goes
 * through config/set's and config/reset's own code, with the cause `link` and the actor
 * `link:<keyId>`, so the history and the events show it as such. The policy the page already
 * read is the one whose locks the write checks: no second read.
 */

export interface LinkWriteDeps {
  store: PreferenceStore;
  now?: () => Date;
}

export interface LinkWrite {
  link: OpenedLink;
  target: Target;
  policy: StoredPolicy;
  /** How the person made the change (evidence.ts). */
  evidence: LinkEvidence;
  signal?: AbortSignal | undefined;
}

const request = (link: OpenedLink, target: Target) => ({
  organizationId: link.organizationId,
  userIds: [link.userId],
  ...(target.documentId === null ? {} : { documentIds: [target.documentId] }),
  ...(target.category === undefined ? {} : { category: target.category }),
});

/** The policy the page read, as config/set's lock check asks for it. */
const readPolicy = (policy: StoredPolicy) => ({ get: async () => policy });

export const setFromLink = async (
  { store, now }: LinkWriteDeps,
  { link, target, policy, evidence, signal }: LinkWrite,
  config: ChannelConfig,
): Promise<void> => {
  await setConfig(
    { store, cause: 'link', evidence, policies: readPolicy(policy), ...(now ? { now } : {}) },
    { ...request(link, target), config },
    linkActor(link.keyId),
    { signal },
  );
};

export const resetFromLink = async (
  { store, now }: LinkWriteDeps,
  { link, target, evidence, signal }: LinkWrite,
  channels: readonly Channel[],
): Promise<void> => {
  await resetConfig(
    { store, cause: 'link', evidence, ...(now ? { now } : {}) },
    { ...request(link, target), channels: [...channels] },
    linkActor(link.keyId),
    { signal },
  );
};
