import { accessOf, type PublicRoute } from '#shared/platform/route.js';
import { PREFERENCE_STORE_GRANTS, SCHEDULE_STORE_GRANTS, USER_EXPORT_READS } from '#shared/preferences/store-grants.js';
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
    ...accessOf(
      // The link's state in one batched read (link-state.ts), the forwarding records of migrated
      // documents in it; the form's sets, resets and schedule.
      { tables: { config: ['BatchGetItem'], migrations: ['BatchGetItem'] } },
      PREFERENCE_STORE_GRANTS.setChannels,
      PREFERENCE_STORE_GRANTS.resetChannels,
      SCHEDULE_STORE_GRANTS.setSchedule,
      // "Download my data": the user's export, read whole.
      ...USER_EXPORT_READS,
    ),
    secrets: ['linkKeys'],
    settings: ['deliveryDefaults', 'linkEvidence'],
  },
} as const satisfies PublicRoute;
