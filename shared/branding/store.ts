import type { StoreAccess } from '#shared/platform/route.js';
import type { Branding, StoredBranding } from './model.js';

/** Where brandings are kept (the config table: keys.ts). */
export interface BrandingStore {
  get(organizationId: string): Promise<StoredBranding | undefined>;
  /** Replaces the branding. */
  put(organizationId: string, branding: Branding, meta: { updatedAt: string; updatedBy: string }): Promise<void>;
  /** Removes it (none: nothing to do). */
  remove(organizationId: string): Promise<void>;
}

/** What each operation of the DynamoDB BrandingStore sends (shared/preferences/store-grants.ts says why). */
export const BRANDING_STORE_GRANTS = {
  get: { tables: { config: ['GetItem'] } },
  put: { tables: { config: ['PutItem'] } },
  remove: { tables: { config: ['DeleteItem'] } },
} as const satisfies Record<keyof BrandingStore, StoreAccess>;
