import { CONSENT_TEXT_STORE_GRANTS } from '#shared/consent/text-store.js';
import type { StoreAccess } from '#shared/platform/route.js';
import type { EntryChangeWriter } from './entry-changes.js';
import { USER_INDEX } from './keys.js';
import type { ErasureEntryStore, MigrationEntryStore, PreferenceStore, ScheduleStore } from './store.js';

/*
 * What each operation of the config table's entry stores sends to DynamoDB (entry-table.ts and
 * the adapters dynamo-*.ts), as the actions IAM checks. A function is granted those of the
 * operations its code calls (accessOf, shared/platform/route.ts). test/unit/store-grants.test.ts
 * drives every operation through its paths and holds each declaration to the calls it records.
 */

/** Reads: BatchGetItem (and the organization's policy item in the same call, for *WithPolicy). */
const READ: StoreAccess = { tables: { config: ['BatchGetItem'] } };

/** A set: one conditional UpdateItem, and one per channel when some channel is newer. */
const SET: StoreAccess = { tables: { config: ['UpdateItem'] } };

/** A reset: UpdateItems, and the DeleteItem of an organization-level entry left empty. */
const RESET: StoreAccess = { tables: { config: ['UpdateItem', 'DeleteItem'] } };

/** A job page's stamps: PartiQL UPDATEs in batches, and an UpdateItem for each the batch did not apply. */
const STAMP: StoreAccess = { tables: { config: ['PartiQLUpdate', 'UpdateItem'] } };

/** A job page's deletes: PartiQL DELETEs in batches, and a DeleteItem for each the batch did not apply. */
const DELETE: StoreAccess = { tables: { config: ['PartiQLDelete', 'DeleteItem'] } };

export const PREFERENCE_STORE_GRANTS = {
  setChannels: SET,
  resetChannels: RESET,
  getEntries: READ,
  getEntriesWithPolicy: READ,
  getUserLayers: READ,
  getUserLayersWithPolicy: READ,
} as const satisfies Record<keyof PreferenceStore, StoreAccess>;

export const SCHEDULE_STORE_GRANTS = {
  // A removal that leaves the organization-level entry empty deletes it.
  setSchedule: RESET,
  getEntries: READ,
} as const satisfies Record<keyof ScheduleStore, StoreAccess>;

/**
 * Many entries' changes (dynamo-entry-changes.ts): PartiQL INSERTs and UPDATEs in batches, and
 * each change the batches did not apply written alone as a set or a schedule's set writes it.
 */
export const ENTRY_CHANGE_GRANTS = {
  writeChanges: { tables: { config: ['PartiQLInsert', 'PartiQLUpdate', 'UpdateItem', 'DeleteItem'] } },
} as const satisfies Record<keyof EntryChangeWriter, StoreAccess>;

export const MIGRATION_ENTRY_STORE_GRANTS = {
  listDocumentEntries: { tables: { config: ['Query'] } },
  getMarkedEntries: READ,
  putEntryIf: { tables: { config: ['PutItem'] } },
  stampForDelete: STAMP,
  deleteEntryIf: { tables: { config: ['DeleteItem'] } },
  deleteEntriesIf: DELETE,
} as const satisfies Record<keyof MigrationEntryStore, StoreAccess>;

/**
 * What reading a user's export sends (shared/people/: users/export and the preference page's
 * "Download my data"): the user's entry keys on the user index and the entries, the consent texts
 * and the link revocation items (BatchGetItem), one Query of the user's history partition per
 * page, the last erasure's name and record (GetItem). Declared here, below both routes' domains.
 */
export const USER_EXPORT_READS: readonly StoreAccess[] = [
  { indexes: { config: [USER_INDEX] } },
  READ,
  CONSENT_TEXT_STORE_GRANTS.getTexts,
  { tables: { history: ['Query'], migrations: ['GetItem'] } },
];

export const ERASURE_ENTRY_STORE_GRANTS = {
  // The user's entries, found on the user index (never a Scan).
  listUserEntries: { indexes: { config: [USER_INDEX] } },
  getMarkedEntries: READ,
  stampForDelete: STAMP,
  deleteEntriesIf: DELETE,
} as const satisfies Record<keyof ErasureEntryStore, StoreAccess>;
