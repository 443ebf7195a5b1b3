import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { LOCALES } from '#shared/api/locales.js';
import { wordsFor } from '#shared/links/i18n/words.js';
import { pageModel } from '#shared/links/page-model.js';
import { embedScript } from '#shared/links/pages/embed.js';
import { toText } from '#shared/links/pages/html.js';
import { preferencePage } from '#shared/links/pages/preference-page.js';
import { scheduleSection } from '#shared/links/pages/schedule-section.js';
import {
  quietField,
  REMOVE_VALUE,
  SCHEDULE_FIELDS,
  type ScheduleChange,
  scheduleChange,
  scheduleFieldKind,
} from '#shared/links/schedule-form.js';
import { type Schedule, schedule as scheduleSchema } from '#shared/schedules/schema.js';
import { timeZoneIssue } from '#shared/schedules/zone.js';
import { FUZZ_RUNS } from '../support/fuzz/runs.js';
import {
  HEAVIEST_AT,
  heaviestBrand,
  heaviestBranding,
  heaviestLinkState,
  largestSchedule,
} from '../support/heaviest-page.js';

// The schedule part of the preference page (shared/links/schedule-form.ts): what a form asks
// for, checked whole (words for a person, nothing written), written only where the person
// changed it, and never anything schedule/set's own schema would refuse.

const AT = new Date('2026-03-01T10:00:00Z');
type Fields = [string, string][];

const UNESCAPE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The fields a browser sends for the rendered markup, untouched: every input but unchecked boxes. */
const formOf = (markup: string): Fields =>
  [...markup.matchAll(/<input ([^>]*)>/g)].flatMap(([, attributes = '']) => {
    const attribute = (name: string) =>
      new RegExp(`(?:^| )${name}="([^"]*)"`).exec(attributes)?.[1]?.replace(/&[a-z#0-9]+;/g, (e) => UNESCAPE[e] ?? e);
    const type = attribute('type');
    if (type === 'checkbox' && !/ checked(?: |$)/.test(attributes)) return [];
    return [[attribute('name') ?? '', attribute('value') ?? '']] as Fields;
  });

const EN = wordsFor('en');
const sectionOf = (stored: Schedule | undefined) => toText(scheduleSection(EN, stored, AT));

/** The page's form with some fields replaced (by name: all their values) and some added. */
const edited = (fields: Fields, replace: Record<string, string[]>, add: Fields = []): Fields => [
  ...fields.filter(([name]) => !(name in replace)),
  ...Object.entries(replace).flatMap(([name, values]) => values.map((value): [string, string] => [name, value])),
  ...add,
];

const berlinNights: Schedule = {
  timeZone: 'Europe/Berlin',
  quietHours: [{ days: ['mon', 'tue'], start: '22:00', end: '07:00', channels: ['email', 'slack'] }],
};

const reasonOf = (change: ScheduleChange) => (change.kind === 'invalid' ? change.reason(EN) : change.kind);

describe('the form as the page renders it', () => {
  test.each([
    ['no schedule', undefined],
    ['quiet hours', berlinNights],
    [
      'seven rules, a snooze and a digest',
      {
        timeZone: 'America/Argentina/ComodRivadavia',
        quietHours: Array.from({ length: 7 }, () => ({
          days: ['sun', 'mon'] as const,
          start: '12:00',
          end: '13:00',
          channels: ['inbox' as const],
        })).map((rule) => ({ ...rule, days: [...rule.days] })),
        snoozeUntil: '2026-03-02T10:00:00.000Z',
        digest: { channels: ['email' as const], cadence: 'weekly' as const, at: '08:00', day: 'wed' as const },
      },
    ],
  ] as [string, Schedule | undefined][])('%s: sent back untouched, it changes nothing', (_name, stored) => {
    const fields = formOf(sectionOf(stored));
    expect(fields.every(([name]) => scheduleFieldKind(name) !== undefined)).toBe(true);
    expect(scheduleChange(fields, stored, AT)).toEqual({ kind: 'unchanged' });
  });

  test('a form without the schedule part (a page from before it) changes nothing', () => {
    expect(scheduleChange([['org:email', 'NONE']], berlinNights, AT)).toEqual({ kind: 'unchanged' });
  });

  test('the snooze and the digest in words, in the person’s time; a snooze that is over is not shown', () => {
    const section = sectionOf({
      ...berlinNights,
      snoozeUntil: '2026-03-03T08:00:00.000Z',
      digest: { channels: ['email', 'slack'], cadence: 'daily', at: '08:30' },
    });
    expect(section).toContain('Email and Slack notifications are snoozed until Tue, Mar 3, 9:00 AM');
    expect(section).toContain('Email and Slack notifications come together in one message, every day at 8:30 AM.');
    expect(sectionOf({ ...berlinNights, snoozeUntil: '2026-02-01T08:00:00.000Z' })).not.toContain('snoozed');
    expect(sectionOf(berlinNights)).not.toContain('<h3>Snooze');
  });

  test('the zone suggestions: those of the area of the person’s zone, every zone when they have none', () => {
    const options = (section: string) => [...section.matchAll(/<option>([^<]+)/g)].map((match) => match[1]);
    const berlin = options(sectionOf(berlinNights));
    expect(berlin).toContain('Europe/Paris');
    expect(berlin.every((zone) => zone?.startsWith('Europe/'))).toBe(true);
    expect(options(sectionOf(undefined))).toEqual(Intl.supportedValuesOf('timeZone'));
    // A zone of no area (UTC) suggests every zone too.
    expect(options(sectionOf({ timeZone: 'UTC' }))).toEqual(Intl.supportedValuesOf('timeZone'));
  });

  test('seven rules leave no room for a new one; fewer show one empty rule to add', () => {
    expect(sectionOf(berlinNights)).toContain('<legend>Quiet hours 2 (new)</legend>');
    const full = { ...berlinNights, quietHours: Array.from({ length: 7 }, () => berlinNights.quietHours?.[0]) };
    expect(sectionOf(full as Schedule)).not.toContain('(new)');
  });
});

test('the page stays under 40 KB in every language for a policy of ten categories and the largest schedule, zone suggestions included (the bench measures it too)', () => {
  const { link, state } = heaviestLinkState(10);
  for (const locale of LOCALES) {
    const words = wordsFor(locale);
    const page = preferencePage({
      words,
      model: pageModel(link, state, BUILT_IN_DEFAULTS, words),
      saved: true,
      extra: scheduleSection(words, largestSchedule, HEAVIEST_AT),
    });
    expect(page).toContain(words.t('schedule.rule', { n: 7 }));
    // The zones of the person's area (America, for America/Argentina/ComodRivadavia).
    expect(page).toContain('<option>America/New_York');
    expect(page).not.toContain('<option>Europe/Berlin');
    expect({ locale, under40KB: Buffer.byteLength(page) < 40 * 1024 }).toEqual({ locale, under40KB: true });
    // Branded and framed by an app: the name, the logo's URL, the colour, the links, the script.
    const branded = preferencePage({
      words,
      model: pageModel(link, state, BUILT_IN_DEFAULTS, words),
      saved: true,
      extra: scheduleSection(words, largestSchedule, HEAVIEST_AT),
      brand: heaviestBrand,
      script: embedScript(heaviestBranding.embedOrigins),
    });
    expect(branded).toContain('<script data-origins=');
    expect({ locale, under40KB: Buffer.byteLength(branded) < 40 * 1024 }).toEqual({ locale, under40KB: true });
  }
});

describe('what a save writes', () => {
  const page = formOf(sectionOf(berlinNights));

  test('quiet hours added: the whole schedule, in schedule/set’s form, times written as a person may', () => {
    const change = scheduleChange(
      edited(page, {
        [quietField(1, 'day')]: ['sun', 'sat'],
        [quietField(1, 'start')]: ['9:30'],
        [quietField(1, 'end')]: [' 12:00 '],
        [quietField(1, 'channel')]: ['inbox'],
      }),
      berlinNights,
      AT,
    );
    expect(change).toEqual({
      kind: 'set',
      schedule: {
        timeZone: 'Europe/Berlin',
        quietHours: [
          ...(berlinNights.quietHours ?? []),
          { days: ['sat', 'sun'], start: '09:30', end: '12:00', channels: ['inbox'] },
        ],
      },
    });
  });

  test('only what the person changed: a newer time zone or newer quiet hours from elsewhere are kept', () => {
    const newerRules: Schedule = {
      ...berlinNights,
      quietHours: [{ days: ['fri'], start: '18:00', end: '20:00', channels: ['slack'] }],
    };
    // The page showed Berlin nights; the person changed the zone; the rules changed elsewhere meanwhile.
    expect(scheduleChange(edited(page, { [SCHEDULE_FIELDS.timeZone]: ['Asia/Tokyo'] }), newerRules, AT)).toEqual({
      kind: 'set',
      schedule: { ...newerRules, timeZone: 'Asia/Tokyo' },
    });
    // The person changed the rule; the zone changed elsewhere meanwhile.
    expect(
      scheduleChange(edited(page, { [quietField(0, 'end')]: ['06:00'] }), { ...berlinNights, timeZone: 'UTC' }, AT),
    ).toEqual({
      kind: 'set',
      schedule: { timeZone: 'UTC', quietHours: [{ ...berlinNights.quietHours?.[0], end: '06:00' }] },
    });
    // Changed to what is stored already: nothing to write.
    expect(
      scheduleChange(edited(page, { [SCHEDULE_FIELDS.timeZone]: ['UTC'] }), { ...berlinNights, timeZone: 'UTC' }, AT),
    ).toEqual({ kind: 'unchanged' });
  });

  test('the snooze and the digest are kept as stored', () => {
    const stored: Schedule = {
      ...berlinNights,
      snoozeUntil: '2026-03-10T00:00:00.000Z',
      digest: { channels: ['email'], cadence: 'weekly', at: '08:00', day: 'mon' },
    };
    const change = scheduleChange(
      edited(formOf(sectionOf(stored)), { [SCHEDULE_FIELDS.timeZone]: ['Asia/Tokyo'] }),
      stored,
      AT,
    );
    expect(change).toEqual({ kind: 'set', schedule: { ...stored, timeZone: 'Asia/Tokyo' } });
  });

  test('a rule removed by its box; everything cleared removes the schedule', () => {
    expect(scheduleChange(edited(page, {}, [[quietField(0, 'remove'), REMOVE_VALUE]]), berlinNights, AT)).toEqual({
      kind: 'set',
      schedule: { timeZone: 'Europe/Berlin' },
    });
    expect(
      scheduleChange(
        edited(page, { [SCHEDULE_FIELDS.timeZone]: [''] }, [[quietField(0, 'remove'), REMOVE_VALUE]]),
        berlinNights,
        AT,
      ),
    ).toEqual({ kind: 'set', schedule: null });
    // Nothing stored, nothing asked: nothing to remove.
    expect(scheduleChange(formOf(sectionOf(undefined)), undefined, AT)).toEqual({ kind: 'unchanged' });
  });
});

describe('a form the page would not send, or a schedule the API would refuse: a reason, nothing written', () => {
  // The page without its empty rule to add (whose channel boxes are checked): the cases fill it in.
  const page = formOf(sectionOf(berlinNights)).filter(([name]) => !name.startsWith('q1'));
  const zone = (name: string) =>
    reasonOf(scheduleChange(edited(page, { [SCHEDULE_FIELDS.timeZone]: [name] }), berlinNights, AT));

  test('time zones: the same data as schedule/set, in words', () => {
    for (const name of [
      'Mars/Olympus',
      '+01:00',
      'SystemV/AST4',
      'Europe/Berlin/x',
      'x'.repeat(5000),
      '<b>',
      'UTC\u0000',
    ]) {
      expect(zone(name)).toBe(
        'The time zone is not one we know: write a name such as Europe/Berlin or America/New_York.',
      );
    }
    expect(zone('europe/berlin')).toBe('Write the time zone as Europe/Berlin.');
    expect(zone(' Asia/Kolkata ')).toBe('set');
    expect(zone('Europe/Berlin')).toBe('unchanged');
  });

  test.each([
    [
      'a day that is none',
      [[quietField(0, 'day'), 'someday']],
      'The form holds a value that is not one of the choices.',
    ],
    [
      'a channel that is none',
      [[quietField(0, 'channel'), 'fax']],
      'The form holds a value that is not one of the choices.',
    ],
    ['a day twice', [[quietField(0, 'day'), 'mon']], 'The form holds a field twice.'],
    [
      'a remove box of another value',
      [[quietField(0, 'remove'), 'no']],
      'The form holds a value that is not one of the choices.',
    ],
    ['a new rule without days', [[quietField(1, 'start'), '10:00']], 'Quiet hours 2: choose at least one day.'],
    [
      'a new rule without an end',
      [
        [quietField(1, 'day'), 'wed'],
        [quietField(1, 'start'), '10:00'],
        [quietField(1, 'channel'), 'email'],
      ],
      'Quiet hours 2: give a start and an end time, such as 22:00 and 07:00.',
    ],
    [
      'a time that is none',
      [
        [quietField(1, 'day'), 'wed'],
        [quietField(1, 'start'), '24:00'],
        [quietField(1, 'end'), '10:00'],
        [quietField(1, 'channel'), 'email'],
      ],
      'Quiet hours 2: give a start and an end time, such as 22:00 and 07:00.',
    ],
    [
      'start and end alike',
      [
        [quietField(1, 'day'), 'wed'],
        [quietField(1, 'start'), '10:00'],
        [quietField(1, 'end'), '10:00'],
        [quietField(1, 'channel'), 'email'],
      ],
      'Quiet hours 2: the start and the end must differ.',
    ],
    [
      'no channel',
      [
        [quietField(1, 'day'), 'wed'],
        [quietField(1, 'start'), '10:00'],
        [quietField(1, 'end'), '11:00'],
      ],
      'Quiet hours 2: choose at least one channel to hold back.',
    ],
  ] as [string, Fields, string][])('%s', (_name, add, reason) => {
    expect(reasonOf(scheduleChange([...page, ...add], berlinNights, AT))).toBe(reason);
  });

  test('quiet hours that leave a channel no free minute, or need a zone that is gone', () => {
    const allWeek = (n: number, start: string, end: string): Fields => [
      ...(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const).map((day): [string, string] => [
        quietField(n, 'day'),
        day,
      ]),
      [quietField(n, 'start'), start],
      [quietField(n, 'end'), end],
      [quietField(n, 'channel'), 'email'],
    ];
    const fields = edited(
      page,
      { [quietField(0, 'day')]: [], [quietField(0, 'start')]: [''], [quietField(0, 'end')]: [] },
      [...allWeek(1, '00:00', '12:00'), ...allWeek(2, '12:00', '00:00')],
    );
    expect(reasonOf(scheduleChange(fields, berlinNights, AT))).toBe(
      'Quiet hours leave Email no free minute in the week: shorten them.',
    );
    expect(reasonOf(scheduleChange(edited(page, { [SCHEDULE_FIELDS.timeZone]: [''] }), berlinNights, AT))).toBe(
      'Quiet hours need a time zone, such as Europe/Berlin.',
    );
    const digest: Schedule = { timeZone: 'UTC', digest: { channels: ['email'], cadence: 'daily', at: '08:00' } };
    expect(
      reasonOf(scheduleChange(edited(formOf(sectionOf(digest)), { [SCHEDULE_FIELDS.timeZone]: [''] }), digest, AT)),
    ).toBe('Your snooze or digest needs a time zone: keep one.');
  });

  test('quiet hours without the time zone field', () => {
    expect(reasonOf(scheduleChange([[quietField(0, 'day'), 'mon']], berlinNights, AT))).toBe(
      'The form holds quiet hours without the time zone field.',
    );
  });

  test('single fields are single; rules beyond the seventh are no field of the page', () => {
    expect(scheduleFieldKind(SCHEDULE_FIELDS.timeZone)).toBe('single');
    expect(scheduleFieldKind(quietField(6, 'start'))).toBe('single');
    expect(scheduleFieldKind(quietField(6, 'day'))).toBe('repeatable');
    expect(scheduleFieldKind('q7d')).toBeUndefined();
    expect(scheduleFieldKind('q0x')).toBeUndefined();
    expect(scheduleFieldKind('q0:day')).toBeUndefined();
    expect(scheduleFieldKind('was:schedule')).toBeUndefined();
  });
});

test(`${FUZZ_RUNS} hostile forms of the schedule part: a reason, nothing, or a schedule that schedule/set accepts`, () => {
  const names = fc.oneof(
    fc.constantFrom(...Object.values(SCHEDULE_FIELDS)),
    fc.tuple(fc.nat({ max: 7 }), fc.constantFrom('d', 's', 'e', 'c', 'r', 'x')).map(([n, part]) => `q${n}${part}`),
  );
  const values = fc.oneof(
    fc.constantFrom('mon', 'sun', 'inbox', 'email', 'slack', REMOVE_VALUE, '22:00', '7:00', '07:00', '24:00', ''),
    fc.constantFrom('Europe/Berlin', 'europe/berlin', 'Etc/GMT+5', 'Mars/Olympus', 'UTC', 'US/Eastern'),
    fc.constantFrom('mon.tue/22:00/07:00/email.slack', 'Europe/Berlin'),
    fc.string({ maxLength: 20 }),
  );
  const stored = fc.constantFrom<Schedule | undefined>(undefined, berlinNights, {
    timeZone: 'Asia/Tokyo',
    snoozeUntil: '2026-03-05T00:00:00.000Z',
    digest: { channels: ['email'], cadence: 'daily', at: '07:00' },
  });
  fc.assert(
    fc.property(fc.array(fc.tuple(names, values), { maxLength: 30 }), stored, (fields, before) => {
      const change = scheduleChange(fields, before, AT);
      if (change.kind === 'invalid') expect(change.reason(EN)).toMatch(/^[A-Z].*\.$/);
      if (change.kind === 'set' && change.schedule) {
        expect(scheduleSchema().parse(change.schedule)).toEqual(change.schedule);
        expect(timeZoneIssue(change.schedule.timeZone)).toBeUndefined();
        expect(change.schedule.snoozeUntil).toBe(before?.snoozeUntil);
        expect(change.schedule.digest).toEqual(before?.digest);
      }
    }),
    { numRuns: FUZZ_RUNS },
  );
});
