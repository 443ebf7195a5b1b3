import type { Channel, DeliverySetting } from '#shared/api/channels.js';

/**
 * The `knock` and `novu` formats (contract 15.1): one line per user as those products' APIs
 * answer a user's preferences, mapped to the import's rows. A channel type with an equivalent
 * here (Knock's in_app_feed, email, chat; Novu's in_app, email, chat) becomes inbox, email or
 * slack, `true` ALL and `false` NONE; Knock's categories become category layers. What has no
 * equivalent (other channel types, workflows, conditions) is named in `unmapped`, counted and
 * reported for the row, never applied.
 */

/** A row of the import (the jsonl format's shape), before it is checked as a set is. */
export interface MappedRow {
  userId: unknown;
  category?: string;
  config: Partial<Record<Channel, DeliverySetting>>;
}

export interface MappedLine {
  rows: MappedRow[];
  /** What the line holds that has no equivalent here, as paths (`channel_types.sms`, `workflows.welcome`). */
  unmapped: string[];
  /** Why the line is not one of the format's, when it is not. */
  error?: string;
}

const KNOCK_CHANNELS: Record<string, Channel> = { in_app_feed: 'inbox', email: 'email', chat: 'slack' };
const NOVU_CHANNELS: Record<string, Channel> = { in_app: 'inbox', email: 'email', chat: 'slack' };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Booleans of channel types to a config; the others named in `unmapped` under `path`. Absent
 * and `null` (Knock answers `null` for a key never set) are no channel types; anything else that
 * is not an object is not the format.
 */
const channelsOf = (
  types: unknown,
  names: Record<string, Channel>,
  path: string,
  unmapped: string[],
): Partial<Record<Channel, DeliverySetting>> | undefined => {
  if (types === undefined || types === null) return {};
  if (!isObject(types)) return undefined;
  const config: Partial<Record<Channel, DeliverySetting>> = {};
  for (const [type, value] of Object.entries(types)) {
    const channel = Object.hasOwn(names, type) ? names[type] : undefined;
    if (channel && typeof value === 'boolean') config[channel] = value ? 'ALL' : 'NONE';
    else unmapped.push(`${path}.${type}`);
  }
  return config;
};

/** Each key of a map Knock answers (workflows, channels) named under `path`; `null` names nothing. */
const nameEach = (value: unknown, path: string, unmapped: string[]): void => {
  if (value === undefined || value === null) return;
  if (isObject(value)) for (const key of Object.keys(value)) unmapped.push(`${path}.${key}`);
  else unmapped.push(path);
};

/** What a Knock preference set holds besides channel types and categories: named, never applied. */
const KNOCK_NAMED_EACH = ['workflows', 'channels'];
/** Knock's own fields that say nothing about a preference. */
const KNOCK_IGNORED = ['id', '__typename', 'channel_types', 'categories'];

/**
 * A line of Knock's format: `{userId, preferenceSet}`, the preference set as Knock's API answers
 * it (GET /v1/users/{user_id}/preferences/{id}).
 */
export const mapKnockLine = (line: Record<string, unknown>): MappedLine => {
  const { userId, preferenceSet } = line;
  if (!isObject(preferenceSet)) return { rows: [], unmapped: [], error: 'preferenceSet must be an object' };
  const unmapped: string[] = [];
  const config = channelsOf(preferenceSet.channel_types, KNOCK_CHANNELS, 'channel_types', unmapped);
  if (!config) return { rows: [], unmapped, error: 'preferenceSet.channel_types must be an object' };
  const rows: MappedRow[] = Object.keys(config).length > 0 ? [{ userId, config }] : [];
  const categories = preferenceSet.categories ?? {};
  if (!isObject(categories)) return { rows: [], unmapped, error: 'preferenceSet.categories must be an object' };
  for (const [category, setting] of Object.entries(categories)) {
    if (typeof setting === 'boolean') {
      // A category turned off (or on) as a whole: every channel of its layer.
      const value: DeliverySetting = setting ? 'ALL' : 'NONE';
      rows.push({ userId, category, config: { inbox: value, email: value, slack: value } });
      continue;
    }
    if (!isObject(setting)) {
      unmapped.push(`categories.${category}`);
      continue;
    }
    const layer = channelsOf(setting.channel_types, KNOCK_CHANNELS, `categories.${category}.channel_types`, unmapped);
    if (!layer) unmapped.push(`categories.${category}.channel_types`);
    else if (Object.keys(layer).length > 0) rows.push({ userId, category, config: layer });
    for (const [key, value] of Object.entries(setting)) {
      if (key !== 'channel_types' && value !== null) unmapped.push(`categories.${category}.${key}`);
    }
  }
  for (const [key, value] of Object.entries(preferenceSet)) {
    if (KNOCK_NAMED_EACH.includes(key)) nameEach(value, key, unmapped);
    else if (!KNOCK_IGNORED.includes(key) && value !== null) unmapped.push(key);
  }
  return { rows, unmapped };
};

/**
 * A line of Novu's format: `{subscriberId, preferences}`, the preferences as Novu's API answers
 * them (GET /v2/subscribers/{subscriberId}/preferences: `global` and `workflows`).
 */
export const mapNovuLine = (line: Record<string, unknown>): MappedLine => {
  const { subscriberId, preferences } = line;
  if (!isObject(preferences)) return { rows: [], unmapped: [], error: 'preferences must be an object' };
  const unmapped: string[] = [];
  const global = preferences.global ?? {};
  if (!isObject(global)) return { rows: [], unmapped, error: 'preferences.global must be an object' };
  const config = channelsOf(global.channels, NOVU_CHANNELS, 'global.channels', unmapped);
  if (!config) return { rows: [], unmapped, error: 'preferences.global.channels must be an object' };
  // Everything turned off at once has no single equivalent here: the channels above say what each one is.
  if (global.enabled === false) unmapped.push('global.enabled');
  const workflows = preferences.workflows ?? [];
  if (Array.isArray(workflows)) {
    workflows.forEach((workflow, index) => {
      const slug = isObject(workflow) && isObject(workflow.workflow) ? workflow.workflow.identifier : undefined;
      unmapped.push(`workflows.${typeof slug === 'string' ? slug : index}`);
    });
  } else unmapped.push('workflows');
  return { rows: Object.keys(config).length > 0 ? [{ userId: subscriberId, config }] : [], unmapped };
};
