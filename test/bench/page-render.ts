import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { LOCALES, type Locale } from '#shared/api/locales.js';
import { wordsFor } from '#shared/links/i18n/words.js';
import { pageModel } from '#shared/links/page-model.js';
import { embedScript } from '#shared/links/pages/embed.js';
import { preferencePage } from '#shared/links/pages/preference-page.js';
import { scheduleSection } from '#shared/links/pages/schedule-section.js';
import {
  HEAVIEST_AT,
  heaviestBrand,
  heaviestBranding,
  heaviestLinkState,
  largestSchedule,
} from '../support/heaviest-page.js';
import { cpuSecondsSince } from './lambda-cpu.js';
import { median } from './stats.js';

/*
 * The preference page's render alone (model, page, schedule part), in this process, per
 * language: the heaviest page of section 4 (a policy of ten categories, seven quiet-hours rules,
 * a snooze and a digest, branded and framed by an app), its CPU per render and its size, without
 * the read or the HTTP around it.
 */

export { heaviestPolicy } from '../support/heaviest-page.js';

export interface RenderFigures {
  bytes: number;
  /** Median CPU microseconds per render. */
  cpuMicros: number;
}

export const renderBench = (categories: number, { renders }: { renders: number }): Record<Locale, RenderFigures> => {
  const { link, state } = heaviestLinkState(categories);
  const renderIn = (locale: Locale) => {
    const words = wordsFor(locale);
    return preferencePage({
      words,
      model: pageModel(link, state, BUILT_IN_DEFAULTS, words),
      saved: false,
      extra: scheduleSection(words, largestSchedule, HEAVIEST_AT),
      brand: heaviestBrand,
      script: embedScript(heaviestBranding.embedOrigins),
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
