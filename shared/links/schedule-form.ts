import { createHash } from 'node:crypto';
import { CHANNELS, type Channel } from '#shared/api/channels.js';
import {
  channelsWithoutFreeMinute,
  MAX_QUIET_RULES,
  type QuietHoursRule,
  type Schedule,
  schedule as scheduleSchema,
  WEEKDAYS,
  type Weekday,
} from '#shared/schedules/schema.js';
import { timeZoneIssue } from '#shared/schedules/zone.js';
import { type FormFields, valuesOf } from './form.js';
import { type Said, said } from './i18n/words.js';

/*
 * The schedule part of the preference page (docs/api.md, The pages: /u/{token} and /p/{token}): the user's time
 * zone and up to seven quiet-hours rules, as plain form fields; the snooze and the digest are
 * shown, and kept as stored. The page carries what it showed (`was:schedule:timeZone`,
 * `was:schedule:quietHours`), so that a save writes only what the person changed: a time zone
 * changed here with quiet hours changed elsewhere meanwhile keeps the newer quiet hours, and the
 * other way round. What is written passes schedule/set's own schema (shared/schedules), the time
 * zone checked against the same ICU data; anything else is a reason for the 400 page, in words.
 * The page is kept small (docs/design.md: under 40 KB for a policy of ten categories, with the
 * largest schedule, in every language): short field names, the rules it showed as a digest.
 */

export const SCHEDULE_FIELDS = {
  timeZone: 'schedule:timeZone',
  shownTimeZone: 'was:schedule:timeZone',
  shownQuietHours: 'was:schedule:quietHours',
} as const;

export type QuietPart = 'day' | 'start' | 'end' | 'channel' | 'remove';

/** A part's letter in a field's name. */
const PART_LETTERS: Record<QuietPart, string> = { day: 'd', start: 's', end: 'e', channel: 'c', remove: 'r' };

/**
 * The field of a part of rule n (0 to 6): `q<n><letter>`, `q0d` for rule 1's days. `day` and
 * `channel` are checkbox groups (repeated).
 */
export const quietField = (n: number, part: QuietPart): string => `q${n}${PART_LETTERS[part]}`;
const QUIET_FIELD = new RegExp(`^q[0-${MAX_QUIET_RULES - 1}]([dsecr])$`);

/** The value of a rule's "remove" checkbox: a checkbox's own when it names none. */
export const REMOVE_VALUE = 'on';

/** Whether `name` is a field of the schedule part: 'single' (at most once), 'repeatable' (a checkbox group), or not. */
export const scheduleFieldKind = (name: string): 'single' | 'repeatable' | undefined => {
  if (Object.values(SCHEDULE_FIELDS).includes(name as never)) return 'single';
  const letter = QUIET_FIELD.exec(name)?.[1];
  if (letter === undefined) return undefined;
  return letter === PART_LETTERS.day || letter === PART_LETTERS.channel ? 'repeatable' : 'single';
};

/** A quiet-hours rule as the page shows and edits it: days and channels in the week's and CHANNELS' order. */
export interface QuietRule {
  days: Weekday[];
  start: string;
  end: string;
  channels: Channel[];
}

/** What the page edits of a schedule. */
export interface QuietHours {
  timeZone: string;
  rules: QuietRule[];
}

const inOrder = <T extends string>(all: readonly T[], some: readonly string[]): T[] =>
  all.filter((value) => some.includes(value));

const ruleOf = (rule: QuietHoursRule): QuietRule => ({
  days: inOrder(WEEKDAYS, rule.days),
  start: rule.start,
  end: rule.end,
  channels: inOrder(CHANNELS, rule.channels),
});

export const quietHoursOf = (stored: Schedule | undefined): QuietHours => ({
  timeZone: stored?.timeZone ?? '',
  rules: (stored?.quietHours ?? []).map(ruleOf),
});

/** The rules as one text: `mon.tue/22:00/07:00/email.slack`, rules joined by `;`. */
const rulesText = (rules: readonly QuietRule[]): string =>
  rules.map((rule) => `${rule.days.join('.')}/${rule.start}/${rule.end}/${rule.channels.join('.')}`).join(';');

/**
 * The page's record of the rules it showed: a digest of their text (short, whatever the rules),
 * compared with the digest of the rules sent back.
 */
export const rulesRecord = (rules: readonly QuietRule[]): string =>
  createHash('sha256').update(rulesText(rules)).digest('base64url').slice(0, 16);

/** Why a form's schedule part is refused, said in the page's language. */
export const SCHEDULE_REASONS = {
  value: said('reason.value'),
  repeated: said('reason.repeated'),
  noTimeZoneField: said('reason.noTimeZoneField'),
  timeZone: said('reason.timeZone'),
  timeZoneSpelled: (zone: string): Said => said('reason.timeZoneSpelled', { zone }),
  timeZoneNeeded: said('reason.timeZoneNeeded'),
  timeZoneKept: said('reason.timeZoneKept'),
  // n: the rule's number as its legend says it (1 to 7).
  days: (n: number): Said => said('reason.days', { n }),
  times: (n: number): Said => said('reason.times', { n }),
  sameTimes: (n: number): Said => said('reason.sameTimes', { n }),
  channels: (n: number): Said => said('reason.channels', { n }),
  noFreeMinute:
    (channels: readonly Channel[]): Said =>
    (words) =>
      words.t('reason.noFreeMinute', { channels: words.list(channels.map((channel) => words.channel(channel))) }),
  invalid: said('reason.invalid'),
} as const;

export type ScheduleChange =
  /** Nothing the person changed: leave the stored schedule alone. */
  | { kind: 'unchanged' }
  /** The schedule to store (null: remove it). */
  | { kind: 'set'; schedule: Schedule | null }
  | { kind: 'invalid'; reason: Said };

const invalid = (reason: Said): ScheduleChange => ({ kind: 'invalid', reason });

/** `7:05` or `07:05` as `07:05`; anything else undefined. */
const clockOf = (text: string | undefined): string | undefined => {
  const match = /^\s*(\d{1,2}):(\d{2})\s*$/.exec(text ?? '');
  if (!match) return undefined;
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  return hours <= 23 && minutes <= 59 ? `${String(hours).padStart(2, '0')}:${match[2]}` : undefined;
};

/** The zone's message of shared/schedules in words for a person (it names the right spelling). */
const zoneReason = (issue: string): Said => {
  const spelled = /^timeZone must be spelled (\S+)$/.exec(issue)?.[1];
  return spelled ? SCHEDULE_REASONS.timeZoneSpelled(spelled) : SCHEDULE_REASONS.timeZone;
};

/** JSON with keys in order: two schedules compare equal whatever order their fields were written in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );

type RulesRead = { ok: true; rules: QuietRule[] } | { ok: false; reason: Said };

/** The rules the form asks for: a row left without days and times is no rule, and neither is a removed one. */
const rulesOf = (fields: FormFields): RulesRead => {
  const rules: QuietRule[] = [];
  for (let n = 0; n < MAX_QUIET_RULES; n++) {
    const days = valuesOf(fields, quietField(n, 'day'));
    const channels = valuesOf(fields, quietField(n, 'channel'));
    const [start] = valuesOf(fields, quietField(n, 'start'));
    const [end] = valuesOf(fields, quietField(n, 'end'));
    const remove = valuesOf(fields, quietField(n, 'remove'));
    const choices = [
      [days, WEEKDAYS],
      [channels, CHANNELS],
      [remove, [REMOVE_VALUE]],
    ] as const;
    for (const [values, allowed] of choices) {
      if (values.some((value) => !(allowed as readonly string[]).includes(value))) {
        return { ok: false, reason: SCHEDULE_REASONS.value };
      }
      if (new Set(values).size !== values.length) return { ok: false, reason: SCHEDULE_REASONS.repeated };
    }
    if (remove.length > 0) continue;
    if (days.length === 0 && !start?.trim() && !end?.trim()) continue;
    const label = n + 1;
    if (days.length === 0) return { ok: false, reason: SCHEDULE_REASONS.days(label) };
    const [from, until] = [clockOf(start), clockOf(end)];
    if (from === undefined || until === undefined) return { ok: false, reason: SCHEDULE_REASONS.times(label) };
    if (from === until) return { ok: false, reason: SCHEDULE_REASONS.sameTimes(label) };
    if (channels.length === 0) return { ok: false, reason: SCHEDULE_REASONS.channels(label) };
    rules.push({ days: inOrder(WEEKDAYS, days), start: from, end: until, channels: inOrder(CHANNELS, channels) });
  }
  return { ok: true, rules };
};

/**
 * The change the form asks for, given the stored schedule and the request's time. A form without
 * any field of the schedule part (a page from before it had one) changes nothing.
 */
export const scheduleChange = (fields: FormFields, stored: Schedule | undefined, at: Date): ScheduleChange => {
  if (!fields.some(([name]) => scheduleFieldKind(name) !== undefined)) return { kind: 'unchanged' };
  const [asked] = valuesOf(fields, SCHEDULE_FIELDS.timeZone);
  if (asked === undefined) return invalid(SCHEDULE_REASONS.noTimeZoneField);
  const read = rulesOf(fields);
  if (!read.ok) return invalid(read.reason);

  const storedRules = quietHoursOf(stored).rules;
  const [shownZone = stored?.timeZone ?? ''] = valuesOf(fields, SCHEDULE_FIELDS.shownTimeZone);
  const [shownRules = rulesRecord(storedRules)] = valuesOf(fields, SCHEDULE_FIELDS.shownQuietHours);
  const zoneChanged = asked.trim() !== shownZone;
  const rulesChanged = rulesRecord(read.rules) !== shownRules;
  if (!zoneChanged && !rulesChanged) return { kind: 'unchanged' };

  // What the person left as it was stays as stored, even if it changed elsewhere meanwhile.
  const timeZone = zoneChanged ? asked.trim() : (stored?.timeZone ?? '');
  const rules = rulesChanged ? read.rules : (stored?.quietHours ?? []);
  const snoozing = stored?.snoozeUntil ? Date.parse(stored.snoozeUntil) > at.getTime() : false;

  if (!timeZone) {
    if (rules.length > 0) return invalid(SCHEDULE_REASONS.timeZoneNeeded);
    if (snoozing || stored?.digest) return invalid(SCHEDULE_REASONS.timeZoneKept);
    return stored ? { kind: 'set', schedule: null } : { kind: 'unchanged' };
  }
  if (zoneChanged) {
    const issue = timeZoneIssue(timeZone);
    if (issue) return invalid(zoneReason(issue));
  }
  const blocked = channelsWithoutFreeMinute(rules);
  if (blocked.length > 0) return invalid(SCHEDULE_REASONS.noFreeMinute(blocked));
  // The schema of schedule/set itself, so that nothing is stored that the API would refuse.
  const parsed = scheduleSchema().safeParse({
    timeZone,
    ...(rules.length > 0 ? { quietHours: rules } : {}),
    ...(stored?.snoozeUntil !== undefined ? { snoozeUntil: stored.snoozeUntil } : {}),
    ...(stored?.digest ? { digest: stored.digest } : {}),
  });
  if (!parsed.success) return invalid(SCHEDULE_REASONS.invalid);
  if (stored && canonical(parsed.data) === canonical(stored)) return { kind: 'unchanged' };
  return { kind: 'set', schedule: parsed.data };
};
