import type { StoreAccess } from '#shared/platform/route.js';
import type { Policy, StoredPolicy } from './model.js';

/** Thrown when a set names a version the stored policy no longer has. */
export class VersionConflict extends Error {
  override readonly name = 'VersionConflict';
  constructor(readonly current: number) {
    super(`The policy is at version ${current}`);
  }
}

/** Where policies are kept (the config table: keys.ts). */
export interface PolicyStore {
  get(organizationId: string): Promise<StoredPolicy>;
  /**
   * Replaces the policy, one version later; with `expectedVersion`, only if the stored one is
   * still that version (0: none yet), else VersionConflict and nothing changes.
   */
  put(
    organizationId: string,
    policy: Policy,
    meta: { updatedAt: string; updatedBy: string },
    expectedVersion?: number,
  ): Promise<{ version: number; updatedAt: string }>;
}

/** What each operation of the DynamoDB PolicyStore sends (shared/preferences/store-grants.ts says why). */
export const POLICY_STORE_GRANTS = {
  get: { tables: { config: ['GetItem'] } },
  put: { tables: { config: ['UpdateItem'] } },
} as const satisfies Record<keyof PolicyStore, StoreAccess>;
