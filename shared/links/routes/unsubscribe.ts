import { accessOf, type PublicRoute } from '#shared/platform/route.js';
import { PREFERENCE_STORE_GRANTS } from '#shared/preferences/store-grants.js';
import { UNSUBSCRIBE_PREFIX } from '../urls.js';

/**
 * GET /u/{token}: what would be unsubscribed (changes nothing). POST /u/{token}: RFC 8058's
 * one-click unsubscribe. A public route (docs/api.md, Links in emails): no API key, HTML answers.
 */
export const unsubscribeRoute = {
  id: 'unsubscribe',
  prefix: UNSUBSCRIBE_PREFIX,
  methods: ['GET', 'POST'],
  summary: 'One-click unsubscribe (RFC 8058) and the page that offers it',
  function: {
    ...accessOf(
      // The link's state in one batched read (link-state.ts), the forwarding records of migrated
      // documents in it; the one-click set.
      { tables: { config: ['BatchGetItem'], migrations: ['BatchGetItem'] } },
      PREFERENCE_STORE_GRANTS.setChannels,
    ),
    secrets: ['linkKeys'],
    settings: ['linkEvidence'],
  },
} as const satisfies PublicRoute;
