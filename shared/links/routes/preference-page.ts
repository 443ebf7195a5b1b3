import type { PublicRoute } from '#shared/platform/route.js';
import { PREFERENCES_PREFIX } from '../urls.js';

/**
 * GET /p/{token}: the preference page. POST /p/{token}: saves its form, then 303 to the page. A
 * public route (docs/api.md, Links in emails): no API key, HTML answers.
 */
export const preferencePageRoute = {
  id: 'preferencePage',
  prefix: PREFERENCES_PREFIX,
  methods: ['GET', 'POST'],
  summary: 'The preference page: each channel per category, and quiet hours',
  function: {
    tables: {
      // The link's state in one batched read (link-state.ts); sets and resets (updates, and the
      // delete of an emptied organization-level entry).
      config: ['BatchGetItem', 'UpdateItem', 'DeleteItem'],
      // The forwarding records of migrated documents, in the same batched read.
      migrations: ['BatchGetItem'],
    },
    secrets: ['linkKeys'],
    settings: ['deliveryDefaults'],
  },
} as const satisfies PublicRoute;
