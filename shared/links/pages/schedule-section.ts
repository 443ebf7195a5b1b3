import { CHANNELS, type Channel } from '#shared/api/channels.js';
import {
  DEFAULT_QUIET_CHANNELS,
  type Digest,
  MAX_QUIET_RULES,
  type Schedule,
  SNOOZE_CHANNELS,
  WEEKDAYS,
  type Weekday,
} from '#shared/schedules/schema.js';
import { type QuietRule, quietField, quietHoursOf, ruleLabel, rulesRecord, SCHEDULE_FIELDS } from '../schedule-form.js';
import { type Html, html } from './html.js';
import { CHANNEL_NAMES } from './words.js';

/*
 * The schedule part of the preference page: the time zone, each quiet-hours rule (days, times,
 * channels held back, and a box to remove it), one empty rule to add while there is room, and
 * the snooze and the digest said in words (edited where the person uses the service, kept here).
 * Every control has a label; each rule is a group named by its legend.
 */

const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

const FULL_DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

/** "Email", "Email and Slack", "In-app inbox, Email and Slack". */
const channelList = (channels: readonly Channel[]): string => {
  const names = CHANNELS.filter((channel) => channels.includes(channel)).map((channel) => CHANNEL_NAMES[channel]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
};

const checkbox = (name: string, value: string, checked: boolean, words: string): Html =>
  html`<label><input type="checkbox" name="${name}" value="${value}"${checked ? html` checked` : ''}>${words}</label>`;

const ruleHtml = (n: number, rule: QuietRule | undefined): Html => {
  const channels = rule?.channels ?? DEFAULT_QUIET_CHANNELS;
  const time = (part: 'start' | 'end', words: string, value: string | undefined) =>
    html`<div class="row"><label for="${quietField(n, part)}">${words}</label><input type="time" id="${quietField(n, part)}" name="${quietField(n, part)}" value="${value ?? ''}"></div>`;
  return html`<fieldset>
<legend>${ruleLabel(n)}${rule ? '' : ' (new)'}</legend>
<fieldset class="days"><legend>Days</legend>${WEEKDAYS.map((day) =>
    checkbox(quietField(n, 'day'), day, rule?.days.includes(day) ?? false, DAY_NAMES[day]),
  )}</fieldset>
${time('start', 'From', rule?.start)}
${time('end', 'Until', rule?.end)}
<fieldset class="days"><legend>Held back</legend>${CHANNELS.map((channel) =>
    checkbox(quietField(n, 'channel'), channel, channels.includes(channel), CHANNEL_NAMES[channel]),
  )}</fieldset>
${rule ? html`<div class="days"><label><input type="checkbox" name="${quietField(n, 'remove')}">Remove these quiet hours</label></div>` : ''}
</fieldset>
`;
};

/** An instant as the person's wall clock: "Mon 2 Mar, 09:00". */
const wallClock = (instant: string, timeZone: string): string => {
  try {
    return new Intl.DateTimeFormat('en-GB', {
      timeZone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(instant));
  } catch {
    return `${instant.slice(0, 16).replace('T', ' ')} UTC`;
  }
};

const digestWords = (digest: Digest): string =>
  `${channelList(digest.channels)} notifications come together in one message, ${
    digest.cadence === 'weekly' && digest.day ? `every ${FULL_DAY_NAMES[digest.day]}` : 'every day'
  } at ${digest.at}.`;

/** The snooze (while it lasts) and the digest, in words; nothing when there is neither. */
const keptHtml = (stored: Schedule | undefined, at: Date): Html | '' => {
  const snoozed = stored?.snoozeUntil && Date.parse(stored.snoozeUntil) > at.getTime() ? stored.snoozeUntil : undefined;
  if (!stored || (!snoozed && !stored.digest)) return '';
  return html`<h3>Snooze and digest</h3>
${snoozed ? html`<p>${channelList(SNOOZE_CHANNELS)} notifications are snoozed until ${wallClock(snoozed, stored.timeZone)}: they arrive then. The in-app inbox keeps collecting.</p>` : ''}
${stored.digest ? html`<p>${digestWords(stored.digest)}</p>` : ''}
<p class="note">You change these where you use the service; saving here keeps them.</p>
`;
};

export const scheduleSection = (stored: Schedule | undefined, at: Date): Html => {
  const hours = quietHoursOf(stored);
  return html`<h2>When notifications arrive</h2>
<div class="row"><label for="tz">Time zone</label><input type="text" id="tz" name="${SCHEDULE_FIELDS.timeZone}" value="${hours.timeZone}" autocomplete="off" spellcheck="false" aria-describedby="tz-hint"></div>
<p class="note" id="tz-hint">A name such as Europe/Berlin or America/New_York: the times below are in it.</p>
<input type="hidden" name="${SCHEDULE_FIELDS.shownTimeZone}" value="${hours.timeZone}">
<input type="hidden" name="${SCHEDULE_FIELDS.shownQuietHours}" value="${rulesRecord(hours.rules)}">
${keptHtml(stored, at)}
<h3>Quiet hours</h3>
<p class="note">During quiet hours, the channels you choose hold notifications back until the quiet hours end (urgent ones
still arrive). Quiet hours that end before they start run past midnight.</p>
${hours.rules.map((rule, n) => ruleHtml(n, rule))}
${hours.rules.length < MAX_QUIET_RULES ? ruleHtml(hours.rules.length, undefined) : ''}
`;
};
