import type { Channel } from '#shared/api/channels.js';
import { DELIVERY_SETTINGS } from '#shared/api/channels.js';
import type { Words } from '../i18n/words.js';
import type { Cell, PageModel, Row } from '../page-model.js';
import { isolated, type PageBrand } from './brand.js';
import { type Html, html } from './html.js';
import { page } from './layout.js';

/*
 * The preference page (GET /p/{token}): one plain form, posted to itself. Each setting is a
 * labelled select (a keyboard, a screen reader and a phone all handle one); its options say the
 * values in words and "use the default", which names what applies then. A locked channel is
 * shown as text with the reason. Each select's name carries the value it showed (`~<value>`), so
 * that a save changes only what the person changed, even if the page was open for a while. The
 * options' end tags are left out (HTML allows it): the page repeats them some hundred times.
 */

export const DEFAULT_VALUE = 'default';

/** The form's name of a cell: `<row>:<channel>`, then `~<what the page showed>`. */
export const cellField = (row: Pick<Row, 'key'>, channel: Channel, shown: string): string =>
  `${row.key}:${channel}~${shown}`;

const cellHtml = (words: Words, row: Row, cell: Cell, nextId: () => string): Html => {
  const name = words.channel(cell.channel);
  if (cell.lock) {
    return html`<div class="row"><span class="name">${name}</span><span class="fixed">${words.value(cell.lock.value)}
<span class="note">${words.t('preferences.locked')}</span></span></div>`;
  }
  const id = nextId();
  const shown = cell.value ?? DEFAULT_VALUE;
  const option = (value: string, text: string) =>
    html`<option value="${value}"${value === shown ? html` selected` : ''}>${text}`;
  return html`<div class="row"><label for="${id}">${name}</label><select id="${id}" name="${cellField(row, cell.channel, shown)}">${[
    // "Use the default", with what it gives now: short enough for a phone's select.
    option(DEFAULT_VALUE, words.defaultChoice(cell.fallback)),
    ...DELIVERY_SETTINGS.map((value) => option(value, words.value(value))),
  ]}</select></div>`;
};

// A row's title and description may be the policy's text, in any direction: isolated (<bdi>), so
// that English in an Arabic page, or the other way round, keeps its punctuation where it belongs.
const rowHtml = (words: Words, row: Row, nextId: () => string): Html =>
  html`<fieldset>
<legend><bdi>${row.title}</bdi></legend>
${row.description ? html`<p class="note"><bdi>${row.description}</bdi></p>` : ''}
${row.cells.map((cell) => cellHtml(words, row, cell, nextId))}
</fieldset>
`;

export interface PreferencePageView {
  words: Words;
  model: PageModel;
  saved: boolean;
  /** More of the form, placed before the save button: the schedule part (schedule-section.ts). */
  extra?: Html;
  brand?: PageBrand | undefined;
  /** At the end of the body: the script of a page that may be framed (embed.ts). */
  script?: Html | undefined;
  /** Offer "Download my data" (a form of its own: DOWNLOAD_FIELD). */
  download?: boolean;
}

/** The one field of the "Download my data" form, and its value. */
export const DOWNLOAD_FIELD = 'download';
export const DOWNLOAD_VALUE = 'data';

const downloadHtml = (words: Words): Html =>
  html`<h2>${words.t('preferences.dataTitle')}</h2>
<p>${words.t('preferences.dataIntro')}</p>
<form method="post">
<input type="hidden" name="${DOWNLOAD_FIELD}" value="${DOWNLOAD_VALUE}">
<p><button type="submit">${words.t('preferences.download')}</button></p>
</form>`;

export const preferencePage = ({ words, model, saved, extra, brand, script, download }: PreferencePageView): string => {
  let count = 0;
  const nextId = () => `s${++count}`;
  return page(
    words,
    words.t('preferences.title'),
    html`${saved ? html`<p class="status" role="status">${words.t('preferences.saved')}</p>` : ''}
<p>${words.t('preferences.intro')}</p>
<form method="post">
<h2>${brand ? words.t('preferences.organizationNamed', { organization: isolated(brand.displayName) }) : words.t('preferences.organization')}</h2>
${model.organization.map((row) => rowHtml(words, row, nextId))}
${
  model.document.length > 0
    ? html`<h2>${words.t('preferences.document')}</h2>
<p class="note">${words.t('preferences.documentNote')}</p>
${model.document.map((row) => rowHtml(words, row, nextId))}`
    : ''
}
${extra ?? ''}
<p><button type="submit">${words.t('preferences.save')}</button></p>
</form>
${download ? downloadHtml(words) : ''}`,
    brand,
    script,
  );
};
