import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { LOCALES, type Locale } from '#shared/api/locales.js';
import { wordsFor } from '#shared/links/i18n/words.js';
import type { LinkState } from '#shared/links/link-state.js';
import type { OpenedLink } from '#shared/links/model.js';
import { pageModel } from '#shared/links/page-model.js';
import { preferencePage } from '#shared/links/pages/preference-page.js';
import { scheduleSection } from '#shared/links/pages/schedule-section.js';
import type { Policy } from '#shared/policy/model.js';
import type { Schedule } from '#shared/schedules/schema.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { median } from './stats.js';

/*
 * The preference page's render alone (model, page, schedule part), in this process, per
 * language: the heaviest page of section 4 (a policy of ten categories, seven quiet-hours rules,
 * a snooze and a digest), its CPU per render and its size, without the read or the HTTP around it.
 */

const AT = new Date('2026-03-01T10:00:00Z');

export const heaviestPolicy = (categories: number): Policy => ({
  channels: { slack: { value: 'MINE' } },
  categories: Object.fromEntries(
    Array.from({ length: categories }, (_, i) => [
      `category-${i}`,
      {
        label: `Category ${i}: what happens in your documents`,
        description:
          'A sentence or two that tells the people who get these notifications what they are about, and why they might want them.',
        channels: { email: { value: 'ALL', ...(i === 0 ? { locked: true as const } : {}) }, inbox: { value: 'MINE' } },
      },
    ]),
  ),
});

const largest: Schedule = {
  timeZone: 'America/Argentina/ComodRivadavia',
  quietHours: Array.from({ length: 7 }, (_, i) => ({
    days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
    start: `${12 + i}:00`,
    end: `${12 + i}:30`,
    channels: ['inbox', 'email', 'slack'],
  })),
  snoozeUntil: '2026-03-20T10:00:00.000Z',
  digest: { channels: ['inbox', 'email', 'slack'], cadence: 'weekly', at: '08:00', day: 'wed' },
};

export interface RenderFigures {
  bytes: number;
  /** Median CPU microseconds per render. */
  cpuMicros: number;
}

export const renderBench = (categories: number, { renders }: { renders: number }): Record<Locale, RenderFigures> => {
  const entry = (documentId: string | null) => ({
    organizationId: 'org',
    userId: 'u',
    documentId,
    scope: documentId === null ? ('organization' as const) : ('document' as const),
    config: { email: 'MINE' as const },
    updatedAt: AT.toISOString(),
    updatedBy: 'k',
    version: 1,
  });
  const link: OpenedLink = {
    organizationId: 'org',
    userId: 'u',
    documentId: 'doc-l',
    category: 'category-3',
    channel: 'email',
    issuedAt: 0,
    expiresAt: 2e9,
    keyId: 'k1',
  };
  const state: LinkState = {
    documentId: 'doc-l',
    policy: { organizationId: 'org', policy: heaviestPolicy(categories), version: 1 },
    organization: { ...entry(null), schedule: largest },
    document: entry('doc-l'),
  };
  const renderIn = (locale: Locale) => {
    const words = wordsFor(locale);
    return preferencePage({
      words,
      model: pageModel(link, state, BUILT_IN_DEFAULTS, words),
      saved: false,
      extra: scheduleSection(words, largest, AT),
    });
  };
  // Warm every language first, then take turns, so that a busy machine moves every language alike.
  for (const locale of LOCALES) for (let i = 0; i < 50; i++) renderIn(locale);
  const samples: Record<string, number[]> = Object.fromEntries(LOCALES.map((locale) => [locale, []]));
  const batch = 20;
  for (let round = 0; round < Math.ceil(renders / batch); round++) {
    for (const locale of LOCALES) {
      const cpu = process.cpuUsage();
      for (let i = 0; i < batch; i++) renderIn(locale);
      samples[locale]?.push((cpuSecondsSince(cpu) * 1e6) / batch);
    }
  }
  return Object.fromEntries(
    LOCALES.map((locale) => [
      locale,
      { bytes: Buffer.byteLength(renderIn(locale)), cpuMicros: median(samples[locale] as number[]) },
    ]),
  ) as Record<Locale, RenderFigures>;
};
