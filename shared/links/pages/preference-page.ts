import type { Channel } from '#shared/api/channels.js';
import { DELIVERY_SETTINGS } from '#shared/api/channels.js';
import type { Cell, PageModel, Row } from '../page-model.js';
import { type Html, html } from './html.js';
import { page } from './layout.js';
import { CHANNEL_NAMES, VALUE_WORDS } from './words.js';

/*
 * The preference page (GET /p/{token}): one plain form, posted to itself. Each setting is a
 * labelled select (a keyboard, a screen reader and a phone all handle one); its options say the
 * values in words and "use the default", which names what applies then. A locked channel is
 * shown as text with the reason. Each select carries the value it showed (`was:`), so that a save
 * changes only what the person changed, even if the page was open for a while.
 */

export const DEFAULT_VALUE = 'default';

/** The form's name of a cell: `<row>:<channel>`. */
export const cellField = (row: Pick<Row, 'key'>, channel: Channel): string => `${row.key}:${channel}`;
export const wasField = (row: Pick<Row, 'key'>, channel: Channel): string => `was:${cellField(row, channel)}`;

const cellHtml = (row: Row, cell: Cell, nextId: () => string): Html => {
  const name = CHANNEL_NAMES[cell.channel];
  if (cell.lock) {
    return html`<div class="row"><span class="name">${name}</span><span class="fixed">${VALUE_WORDS[cell.lock.value]}
<span class="note">(set by your organization: it cannot be changed here)</span></span></div>`;
  }
  const id = nextId();
  const shown = cell.value ?? DEFAULT_VALUE;
  const option = (value: string, words: string) =>
    html`<option value="${value}"${value === shown ? html` selected` : ''}>${words}</option>`;
  return html`<div class="row"><label for="${id}">${name}</label><select id="${id}" name="${cellField(row, cell.channel)}">${[
    // "Use the default", with what it gives now: short enough for a phone's select.
    option(DEFAULT_VALUE, `Default: ${VALUE_WORDS[cell.fallback].toLowerCase()}`),
    ...DELIVERY_SETTINGS.map((value) => option(value, VALUE_WORDS[value])),
  ]}</select><input type="hidden" name="${wasField(row, cell.channel)}" value="${shown}"></div>`;
};

const rowHtml = (row: Row, nextId: () => string): Html =>
  html`<fieldset>
<legend>${row.title}</legend>
${row.description ? html`<p class="note">${row.description}</p>` : ''}
${row.cells.map((cell) => cellHtml(row, cell, nextId))}
</fieldset>
`;

export interface PreferencePageView {
  model: PageModel;
  saved: boolean;
  /** More of the form, placed before the save button: the schedule part (schedule-section.ts). */
  extra?: Html;
}

export const preferencePage = ({ model, saved, extra }: PreferencePageView): string => {
  let count = 0;
  const nextId = () => `s${++count}`;
  return page(
    'Your notification settings',
    html`${saved ? html`<p class="status" role="status">Your choices are saved.</p>` : ''}
<p>Choose, for each kind of notification, what reaches you on each channel. Choose “Default” to use the
default: the setting for everything else, or your organization’s. Each says what it is now. Further down:
your time zone and quiet hours.</p>
<form method="post">
<h2>From this organization</h2>
${model.organization.map((row) => rowHtml(row, nextId))}
${
  model.document.length > 0
    ? html`<h2>This document</h2>
<p class="note">These settings win over the ones above, for this document only.</p>
${model.document.map((row) => rowHtml(row, nextId))}`
    : ''
}
${extra ?? ''}
<p><button type="submit">Save</button></p>
</form>`,
  );
};
