import type { Channel } from '#shared/api/channels.js';
import { lockOf, type Policy } from '#shared/policy/model.js';
import type { Words } from '../i18n/words.js';
import { LIST_UNSUBSCRIBE_POST } from '../model.js';
import { policyCategories } from '../page-model.js';
import { type Choice, categoryLabel, type Target } from '../targets.js';
import { isolated, type PageBrand } from './brand.js';
import { type Html, html } from './html.js';
import { page } from './layout.js';

/* The pages of /u/{token}: the offer (GET), and what the one-click POST did, in the words' language. */

const [FIELD, VALUE] = LIST_UNSUBSCRIBE_POST.split('=') as [string, string];

/** "email notifications about Comments on this document", and so on, for a target. */
export const describeTarget = (
  words: Words,
  policy: Policy,
  channel: Channel,
  target: Target,
  organization?: string,
): string => {
  const what = words.notifications(channel);
  const category = target.category === undefined ? undefined : categoryLabel(policy, target.category, words.locale);
  if (target.documentId !== null) {
    return category === undefined
      ? words.t('target.document', { what })
      : words.t('target.documentCategory', { what, category });
  }
  if (category !== undefined) return words.t('target.category', { what, category });
  // No "every": "you will no longer get every email notification" reads as "some of them".
  return organization === undefined
    ? words.t('target.organization', { what })
    : words.t('target.organizationNamed', { what, organization: isolated(organization) });
};

/**
 * The policy's categories (by label) whose `channel` is locked to a value that sends: what a
 * target of every category still gets. (A lock of every category refuses the unsubscribe itself.)
 */
const stillSent = (words: Words, policy: Policy, channel: Channel): string[] =>
  policyCategories(policy)
    .filter(([id]) => {
      const lock = lockOf(policy, channel, id);
      return lock !== undefined && lock.value !== 'NONE';
    })
    .map(([id]) => categoryLabel(policy, id, words.locale));

const lockNote = (words: Words, policy: Policy, channel: Channel, choice: Choice, organization?: string) =>
  choice.lock
    ? html`<span class="note" id="lock-${choice.scope}">${words.t('unsubscribe.lock', {
        target: describeTarget(words, policy, channel, choice.target, organization),
        value: words.valueInline(choice.lock.value),
      })}</span>`
    : '';

/**
 * The link to the preference page, relative to /u/<token>: it works under any base path. Only
 * for a token that opens it too (made before each URL had its own token); otherwise the page
 * points to the email's own preference link.
 */
const preferencesLink = (words: Words, token: string | undefined): Html | string =>
  token === undefined
    ? words.t('unsubscribe.chooseInEmail')
    : words.rich('unsubscribe.choose', { link: (chunks) => html`<a href="../p/${token}">${chunks}</a>` });

export const offerPage = (
  words: Words,
  policy: Policy,
  channel: Channel,
  choices: readonly Choice[],
  token: string | undefined,
  brand?: PageBrand,
): string => {
  const open = choices.filter((choice) => !choice.lock);
  // The link's own scope is chosen unless it is locked: never a wider one on the person's behalf.
  // Then the person must choose one (`required`): the browser does not send the form without a
  // choice, which would only answer that the locked scope cannot be changed.
  const preselected = choices[0]?.lock ? undefined : choices[0];
  const only = choices.length === 1 ? choices[0] : undefined;
  const body = only
    ? html`<p>${words.t('unsubscribe.noLonger', { target: describeTarget(words, policy, channel, only.target, brand?.displayName) })}</p>${
        only.lock ? html`<p>${lockNote(words, policy, channel, only, brand?.displayName)}</p>` : ''
      }`
    : html`<fieldset>
<legend>${words.t('unsubscribe.legend')}</legend>
${choices.map(
  (
    choice,
  ) => html`<div class="choice"><input type="radio" name="scope" id="scope-${choice.scope}" value="${choice.scope}"${
    choice === preselected ? html` checked` : ''
  }${preselected === undefined && !choice.lock ? html` required` : ''}${
    choice.lock ? html` disabled aria-describedby="lock-${choice.scope}"` : ''
  }>
<label for="scope-${choice.scope}">${words.capitalized(describeTarget(words, policy, channel, choice.target, brand?.displayName))}${
    choice.lock ? html`<br>${lockNote(words, policy, channel, choice, brand?.displayName)}` : ''
  }</label></div>`,
)}
</fieldset>`;
  return page(
    words,
    words.t('unsubscribe.title', { channel }),
    html`${
      open.length > 0
        ? html`<form method="post">
<input type="hidden" name="${FIELD}" value="${VALUE}">
${body}
<p><button type="submit">${words.t('unsubscribe.button')}</button></p>
</form>`
        : body
    }
<p>${words.rich('unsubscribe.elsewhere', { choose: preferencesLink(words, token) })}</p>`,
    brand,
  );
};

export const unsubscribedPage = (
  words: Words,
  policy: Policy,
  channel: Channel,
  target: Target,
  token: string | undefined,
  brand?: PageBrand,
): string => {
  const kept = target.category === undefined ? stillSent(words, policy, channel) : [];
  const described = describeTarget(words, policy, channel, target, brand?.displayName);
  return page(
    words,
    words.t('unsubscribed.title'),
    html`<p class="status" role="status">${
      kept.length > 0
        ? words.t('unsubscribe.noLongerExcept', { target: described, kept: words.list(kept) })
        : words.t('unsubscribe.noLonger', { target: described })
    }</p>
<p>${words.rich('unsubscribed.changedMind', { choose: preferencesLink(words, token) })}</p>`,
    brand,
  );
};

export const lockedPage = (
  words: Words,
  policy: Policy,
  channel: Channel,
  choice: Choice,
  token: string | undefined,
  brand?: PageBrand,
): string =>
  page(
    words,
    words.t('locked.title'),
    html`<p class="status" role="status">${lockNote(words, policy, channel, choice, brand?.displayName)}</p>
<p>${words.rich('locked.more', { choose: preferencesLink(words, token) })}</p>`,
    brand,
  );
