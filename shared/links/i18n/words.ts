import IntlMessageFormat from 'intl-messageformat';
import type { Channel, DeliverySetting } from '#shared/api/channels.js';
import { directionOf, type Locale } from '#shared/api/locales.js';
import type { Weekday } from '#shared/schedules/schema.js';
import { type Html, type HtmlValue, html } from '../pages/html.js';
import type { MessageKey } from './catalogs/en.js';
import { CATALOGS } from './catalogs/index.js';

/*
 * How the pages say things in one language (docs/api.md, The pages' languages): the messages of
 * its catalog (ICU MessageFormat through intl-messageformat), and days, times, zones and lists
 * through Intl in that locale. One Words per language, built on first use and kept: a message is
 * parsed once, a message without placeholders formatted once.
 */

type Values = Record<string, string | number>;
type RichValues = Record<string, string | number | Html | ((chunks: HtmlValue[]) => Html)>;

/** Text said in the person's language: a reason for the 400 page, say. */
export type Said = (words: Words) => string;

/** A message as Said. */
export const said =
  (key: MessageKey, values?: Values): Said =>
  (words) =>
    words.t(key, values);

// 5 January 2026 is a Monday: the days of that week, at noon UTC, name the weekdays.
const WEEKDAY_DATES: Record<Weekday, number> = {
  mon: Date.UTC(2026, 0, 5, 12),
  tue: Date.UTC(2026, 0, 6, 12),
  wed: Date.UTC(2026, 0, 7, 12),
  thu: Date.UTC(2026, 0, 8, 12),
  fri: Date.UTC(2026, 0, 9, 12),
  sat: Date.UTC(2026, 0, 10, 12),
  sun: Date.UTC(2026, 0, 11, 12),
};

export class Words {
  readonly dir: 'ltr' | 'rtl';
  private readonly formats = new Map<MessageKey, IntlMessageFormat>();
  private readonly plain = new Map<string, string>();
  // Built on first use: most pages say no list, weekday or time, and each format costs far more to
  // build than to use.
  private lists: Intl.ListFormat | undefined;
  private readonly weekdays: Partial<Record<'short' | 'long', Intl.DateTimeFormat>> = {};
  private clock: Intl.DateTimeFormat | undefined;
  private readonly zones = new Map<string, { dateTime: Intl.DateTimeFormat; zone: Intl.DateTimeFormat }>();

  constructor(readonly locale: Locale) {
    this.dir = directionOf(locale);
  }

  private format(key: MessageKey): IntlMessageFormat {
    let format = this.formats.get(key);
    if (!format) {
      format = new IntlMessageFormat(CATALOGS[this.locale][key], this.locale);
      this.formats.set(key, format);
    }
    return format;
  }

  /** A message as text (placed in markup, it is escaped like any text). */
  t(key: MessageKey, values?: Values): string {
    if (values === undefined) {
      let text = this.plain.get(key);
      if (text === undefined) {
        text = String(this.format(key).format());
        this.plain.set(key, text);
      }
      return text;
    }
    return String(this.format(key).format(values));
  }

  /** A message with markup among its values or tags (`<link>...</link>`): its text escaped, the markup kept. */
  rich(key: MessageKey, values: RichValues): Html {
    const parts = this.format(key).format<Html>(values as never) as HtmlValue;
    return html`${parts}`;
  }

  /** A message keyed by a select value, formatted once per value. */
  private selected(key: MessageKey, name: string, value: string): string {
    const memo = `${key}\u0000${value}`;
    let text = this.plain.get(memo);
    if (text === undefined) {
      text = this.t(key, { [name]: value });
      this.plain.set(memo, text);
    }
    return text;
  }

  /** "Email", "Slack", "In-app inbox". */
  channel(channel: Channel): string {
    return this.selected('channel.name', 'channel', channel);
  }

  /** "email notifications", as a sentence's words. */
  notifications(channel: Channel): string {
    return this.selected('channel.notifications', 'channel', channel);
  }

  /** "Every notification", as a choice. */
  value(value: DeliverySetting): string {
    return this.selected('value.name', 'value', value);
  }

  /** "every notification", within a sentence. */
  valueInline(value: DeliverySetting): string {
    return this.selected('value.inline', 'value', value);
  }

  /** The option "use the default", with what it gives now: "Default: every notification". */
  defaultChoice(value: DeliverySetting): string {
    const memo = `preferences.default\u0000${value}`;
    let text = this.plain.get(memo);
    if (text === undefined) {
      text = this.t('preferences.default', { value: this.valueInline(value) });
      this.plain.set(memo, text);
    }
    return text;
  }

  /** "Email and Slack", "In-app inbox, Email and Slack". */
  list(items: readonly string[]): string {
    this.lists ??= new Intl.ListFormat(this.locale, { type: 'conjunction' });
    return this.lists.format(items);
  }

  /** "Mon", "Monday", in the locale. */
  weekday(day: Weekday, width: 'short' | 'long'): string {
    const memo = `day\u0000${width}\u0000${day}`;
    let text = this.plain.get(memo);
    if (text === undefined) {
      this.weekdays[width] ??= new Intl.DateTimeFormat(this.locale, { weekday: width, timeZone: 'UTC' });
      text = this.weekdays[width].format(WEEKDAY_DATES[day]);
      this.plain.set(memo, text);
    }
    return text;
  }

  /** A wall-clock time `HH:MM` as the locale writes it ("8:00 AM", "08:00"). */
  time(clock: string): string {
    const [hours = 0, minutes = 0] = clock.split(':').map(Number);
    this.clock ??= new Intl.DateTimeFormat(this.locale, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });
    return this.clock.format(Date.UTC(2026, 0, 5, hours, minutes));
  }

  /** An instant as the person's wall clock in `timeZone`: "Fri, Mar 20, 11:00 AM". */
  dateTime(instant: string, timeZone: string): string {
    const format = this.inZone(timeZone);
    return format ? format.dateTime.format(new Date(instant)) : `${instant.slice(0, 16).replace('T', ' ')} UTC`;
  }

  /** A zone's name in the locale ("Central European Time"), if ICU has one. */
  zoneName(timeZone: string, at: Date): string | undefined {
    return this.inZone(timeZone)
      ?.zone.formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value;
  }

  /**
   * The formats of a zone, built once per zone (a format costs far more to build than to use);
   * kept for the zones ICU knows, which bound their number.
   */
  private inZone(timeZone: string): { dateTime: Intl.DateTimeFormat; zone: Intl.DateTimeFormat } | undefined {
    if (!timeZone) return undefined;
    let formats = this.zones.get(timeZone);
    if (formats === undefined) {
      try {
        formats = {
          dateTime: new Intl.DateTimeFormat(this.locale, {
            timeZone,
            weekday: 'short',
            day: 'numeric',
            month: 'short',
            hour: 'numeric',
            minute: '2-digit',
          }),
          zone: new Intl.DateTimeFormat(this.locale, { timeZone, timeZoneName: 'longGeneric' }),
        };
      } catch {
        return undefined;
      }
      this.zones.set(timeZone, formats);
    }
    return formats;
  }

  /** Text's first letter as a capital, where the script has capitals. */
  capitalized(text: string): string {
    return `${text.charAt(0).toLocaleUpperCase(this.locale)}${text.slice(1)}`;
  }
}

const built = new Map<Locale, Words>();

/** The words of a language, built on first use and kept. */
export const wordsFor = (locale: Locale): Words => {
  let words = built.get(locale);
  if (!words) {
    words = new Words(locale);
    built.set(locale, words);
  }
  return words;
};
