import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import type { StoredBranding } from '#shared/branding/model.js';
import type { KeyringSource } from '#shared/links/keyring.js';
import type { LinkState, LinkStateReader } from '#shared/links/link-state.js';
import { preferencesPage } from '#shared/links/preferences.js';
import { unsubscribePage } from '#shared/links/unsubscribe.js';

/**
 * The two page handlers of the links in process, over an organization with an empty policy and
 * the given branding (or none): for tests of what the pages render, no store behind them.
 */
export const pageHandlers = (keys: KeyringSource, now: Date, branding: StoredBranding | undefined) => {
  const reader: LinkStateReader = {
    read: async (link) =>
      ({
        policy: { organizationId: link.organizationId, policy: {}, version: 0 },
        ...(branding ? { branding } : {}),
      }) as LinkState,
  };
  const deps = { keys, reader, store: {} as never, now: () => now };
  return {
    unsubscribe: unsubscribePage(deps),
    preferences: preferencesPage({ ...deps, schedules: {} as never, defaults: BUILT_IN_DEFAULTS }),
  };
};
