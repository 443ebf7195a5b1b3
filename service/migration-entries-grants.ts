import type { MigrationEntries } from '#shared/migration/copies.js';
import type { StoreAccess } from '#shared/platform/route.js';
import { MIGRATION_ENTRY_STORE_GRANTS } from '#shared/preferences/store-grants.js';

const { putEntryIf: _replacedByTheCopy, ...storeGrants } = MIGRATION_ENTRY_STORE_GRANTS;

/** Build-time: what each operation of a migration's MigrationEntries sends (shared/preferences/store-grants.ts says why). */
export const MIGRATION_ENTRIES_GRANTS = {
  ...storeGrants,
  // One TransactWriteItems of a Put (the copy) and an Update (the source's stamp): IAM checks each.
  copyEntryIf: { tables: { config: ['PutItem', 'UpdateItem'] } },
} as const satisfies Record<keyof MigrationEntries, StoreAccess>;
