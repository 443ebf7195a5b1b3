import type {
  ConfigHistoryResult,
  ErasureStatusResult,
  GetConfigInput,
  GetConfigResult,
  MigrationStatusResult,
  SetConfigInput,
  SetConfigResult,
  UserExportResult,
} from './operations.js';

// Names for the values the operations' generated types spell out inline. Derived from those
// types, so that they follow the service's schemas whenever `npm run generate` runs.

/** One item of getConfig's answer (what getConfigItem resolves to): stored, effective and source per channel. */
export type ConfigItem = GetConfigResult[number];
/** A notification channel: `'inbox' | 'email' | 'slack'`. */
export type ChannelName = keyof ConfigItem['effective'];
/** A channel's delivery setting: `'ALL' | 'MINE' | 'NONE'`. */
export type ChannelValue = ConfigItem['effective'][ChannelName];
/** Some channels' settings: what setConfig takes as `config`, and what an entry stores. */
export type ChannelConfig = SetConfigInput['config'];
/** Every channel's setting, as resolved in `effective`. */
export type EffectiveConfig = ConfigItem['effective'];
/** Which layer gave an effective channel: `'document' | 'organization' | 'default'`. */
export type ConfigSource = ConfigItem['source'][ChannelName];
/** A stored entry's level: `'document' | 'organization'`. */
export type ConfigScope = ConfigItem['scope'];
/** The per-user entry of setConfig's and resetConfig's answers. */
export type UserWriteResult = SetConfigResult[string];
/** One change of getConfigHistory's answer. */
export type ConfigChange = ConfigHistoryResult['changes'][number];
/** What made a change: `'set' | 'reset' | 'migration' | 'erasure'`. */
export type ChangeCause = ConfigChange['cause'];
/** One record of exportUser's answer, typed by `kind`: entry, schedule, change, consentText, linkRevocation, erasure. */
export type ExportRecord = UserExportResult['records'][number];
/** How a change was made: `via` api (with what the caller stated), link, page, migration, erasure or import. */
export type ChangeEvidence = ConfigChange['evidence'];
/** A migration's state: `'pending' | 'in_progress' | 'completed' | 'failed'`. */
export type MigrationStatus = MigrationStatusResult['status'];
/** An erasure's state, the same four as a migration's. */
export type ErasureStatus = ErasureStatusResult['status'];

/**
 * `data` of getConfigItem: getConfig's, with one optional `documentId` instead of `documentIds`.
 * Without a document (or with `null`, as an organization-level item names its document), the
 * organization-level item.
 */
export type GetConfigItemInput = Omit<GetConfigInput, 'documentIds'> & { documentId?: string | null | undefined };
