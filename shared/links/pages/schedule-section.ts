import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { once } from '#shared/platform/once.js';
import {
  DEFAULT_QUIET_CHANNELS,
  type Digest,
  MAX_QUIET_RULES,
  type Schedule,
  SNOOZE_CHANNELS,
  WEEKDAYS,
} from '#shared/schedules/schema.js';
import type { Words } from '../i18n/words.js';
import { type QuietRule, quietField, quietHoursOf, rulesRecord, SCHEDULE_FIELDS } from '../schedule-form.js';
import { type Html, html } from './html.js';

/*
 * The schedule part of the preference page: the time zone (IANA zones as suggestions: a
 * datalist, which needs no script), each quiet-hours rule (days, times, channels held back, and a
 * box to remove it), one empty rule to add while there is room, and the snooze and the digest
 * said in words (edited where the person uses the service, kept here). Every control has a label;
 * each rule is a group named by its legend. Days, times and zones are said in the page's locale.
 */

const ZONES = once(() => Intl.supportedValuesOf('timeZone'));

/** The area of a zone (`America` of `America/New_York`) when ICU has zones in it; else none. */
const areaOf = (timeZone: string): string => {
  const slash = timeZone.indexOf('/');
  const area = slash === -1 ? '' : timeZone.slice(0, slash);
  return area !== '' && ZONES().some((zone) => zone.startsWith(`${area}/`)) ? area : '';
};

const optionsByArea = new Map<string, Html>();

/**
 * The datalist's options: the zones of the person's area (the region of the zone they have, where
 * they most likely pick another), or every zone ICU knows when they have none yet. Every zone is
 * some 10 KB, which a page with a long policy, seven quiet-hours rules and a branding cannot
 * afford within its 40 KB; any other zone can still be typed. An option without a value attribute
 * has its text as its value, and needs no end tag: the shortest markup of a suggestion.
 */
const zoneOptions = (timeZone: string): Html => {
  const area = areaOf(timeZone);
  let options = optionsByArea.get(area);
  if (!options) {
    const zones = area === '' ? ZONES() : ZONES().filter((zone) => zone.startsWith(`${area}/`));
    options = html`<datalist id="zones">${zones.map((zone) => html`<option>${zone}`)}</datalist>`;
    optionsByArea.set(area, options);
  }
  return options;
};

/** The channels in CHANNELS' order, as a list in the words' language: "Email and Slack". */
const channelList = (words: Words, channels: readonly Channel[]): string =>
  words.list(CHANNELS.filter((channel) => channels.includes(channel)).map((channel) => words.channel(channel)));

const checkbox = (name: string, value: string, checked: boolean, text: string): Html =>
  html`<label><input type="checkbox" name="${name}" value="${value}"${checked ? html` checked` : ''}>${text}</label>`;

const ruleHtml = (words: Words, n: number, rule: QuietRule | undefined): Html => {
  const channels = rule?.channels ?? DEFAULT_QUIET_CHANNELS;
  const time = (part: 'start' | 'end', text: string, value: string | undefined) =>
    html`<div class="row"><label for="${quietField(n, part)}">${text}</label><input type="time" id="${quietField(n, part)}" name="${quietField(n, part)}" value="${value ?? ''}"></div>`;
  return html`<fieldset>
<legend>${words.t(rule ? 'schedule.rule' : 'schedule.ruleNew', { n: n + 1 })}</legend>
<fieldset class="days"><legend>${words.t('schedule.days')}</legend>${WEEKDAYS.map((day) =>
    checkbox(quietField(n, 'day'), day, rule?.days.includes(day) ?? false, words.weekday(day, 'short')),
  )}</fieldset>
${time('start', words.t('schedule.from'), rule?.start)}
${time('end', words.t('schedule.until'), rule?.end)}
<fieldset class="days"><legend>${words.t('schedule.heldBack')}</legend>${CHANNELS.map((channel) =>
    checkbox(quietField(n, 'channel'), channel, channels.includes(channel), words.channel(channel)),
  )}</fieldset>
${rule ? html`<div class="days"><label><input type="checkbox" name="${quietField(n, 'remove')}">${words.t('schedule.remove')}</label></div>` : ''}
</fieldset>
`;
};

const digestWords = (words: Words, digest: Digest): string =>
  words.t('schedule.digest', {
    channels: channelList(words, digest.channels),
    cadence: digest.cadence === 'weekly' && digest.day ? 'weekly' : 'daily',
    day: digest.day ? words.weekday(digest.day, 'long') : '',
    at: words.time(digest.at),
  });

/** The snooze (while it lasts) and the digest, in words; nothing when there is neither. */
const keptHtml = (words: Words, stored: Schedule | undefined, at: Date): Html | '' => {
  const snoozed = stored?.snoozeUntil && Date.parse(stored.snoozeUntil) > at.getTime() ? stored.snoozeUntil : undefined;
  if (!stored || (!snoozed && !stored.digest)) return '';
  return html`<h3>${words.t('schedule.keptHeading')}</h3>
${snoozed ? html`<p>${words.t('schedule.snoozed', { channels: channelList(words, SNOOZE_CHANNELS), until: words.dateTime(snoozed, stored.timeZone) })}</p>` : ''}
${stored.digest ? html`<p>${digestWords(words, stored.digest)}</p>` : ''}
<p class="note">${words.t('schedule.keptNote')}</p>
`;
};

export const scheduleSection = (words: Words, stored: Schedule | undefined, at: Date): Html => {
  const hours = quietHoursOf(stored);
  const zone = words.zoneName(hours.timeZone, at);
  return html`<h2>${words.t('schedule.heading')}</h2>
<div class="row"><label for="tz">${words.t('schedule.timeZone')}</label><input type="text" id="tz" name="${SCHEDULE_FIELDS.timeZone}" value="${hours.timeZone}" list="zones" autocomplete="off" spellcheck="false" dir="ltr" aria-describedby="tz-hint"></div>
${zoneOptions(hours.timeZone)}
<p class="note" id="tz-hint">${words.t('schedule.timeZoneHint')}${zone ? ` ${words.t('schedule.timeZoneIs', { zone })}` : ''}</p>
<input type="hidden" name="${SCHEDULE_FIELDS.shownTimeZone}" value="${hours.timeZone}">
<input type="hidden" name="${SCHEDULE_FIELDS.shownQuietHours}" value="${rulesRecord(hours.rules)}">
${keptHtml(words, stored, at)}
<h3>${words.t('schedule.quietHeading')}</h3>
<p class="note">${words.t('schedule.quietNote')}</p>
${hours.rules.map((rule, n) => ruleHtml(words, n, rule))}
${hours.rules.length < MAX_QUIET_RULES ? ruleHtml(words, hours.rules.length, undefined) : ''}
`;
};
