import type { Channel } from '#shared/api/channels.js';
import { lockOf, type Policy } from '#shared/policy/model.js';
import { LIST_UNSUBSCRIBE_POST } from '../model.js';
import { policyCategories } from '../page-model.js';
import { type Choice, categoryLabel, type Target } from '../targets.js';
import { html } from './html.js';
import { page } from './layout.js';
import { channelNotifications, VALUE_WORDS } from './words.js';

/* The pages of /u/{token}: the offer (GET), and what the one-click POST did. */

const [FIELD, VALUE] = LIST_UNSUBSCRIBE_POST.split('=') as [string, string];

/** "email notifications about Comments on this document", and so on, for a target. */
export const describeTarget = (policy: Policy, channel: Channel, target: Target): string => {
  const what = channelNotifications(channel);
  const about = target.category === undefined ? undefined : categoryLabel(policy, target.category);
  if (target.documentId !== null)
    return about ? `${what} about ${about} on this document` : `${what} about this document`;
  if (about) return `${what} about ${about}, on every document`;
  // No "every": "you will no longer get every email notification" reads as "some of them".
  return `${what} from this organization`;
};

/**
 * The policy's categories (by label) whose `channel` is locked to a value that sends: what a
 * target of every category still gets. (A lock of every category refuses the unsubscribe itself.)
 */
const stillSent = (policy: Policy, channel: Channel): string[] =>
  policyCategories(policy)
    .filter(([id]) => {
      const lock = lockOf(policy, channel, id);
      return lock !== undefined && lock.value !== 'NONE';
    })
    .map(([id]) => categoryLabel(policy, id));

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const lockNote = (policy: Policy, channel: Channel, choice: Choice) =>
  choice.lock
    ? html`<span class="note" id="lock-${choice.scope}">Your organization has set ${describeTarget(policy, channel, choice.target)}
to “${VALUE_WORDS[choice.lock.value].toLowerCase()}”: this cannot be changed here.</span>`
    : '';

/**
 * The link to the preference page, relative to /u/<token>: it works under any base path. Only
 * for a token that opens it too (made before each URL had its own token); otherwise the page
 * points to the email's own preference link.
 */
const preferencesLink = (token: string | undefined) =>
  token === undefined
    ? html`Choose which notifications you get with the preferences link of the email`
    : html`<a href="../p/${token}">Choose which notifications you get</a>`;

export const offerPage = (
  policy: Policy,
  channel: Channel,
  choices: readonly Choice[],
  token: string | undefined,
): string => {
  const open = choices.filter((choice) => !choice.lock);
  // The link's own scope is chosen unless it is locked: never a wider one on the person's behalf.
  // Then the person must choose one (`required`): the browser does not send the form without a
  // choice, which would only answer that the locked scope cannot be changed.
  const preselected = choices[0]?.lock ? undefined : choices[0];
  const only = choices.length === 1 ? choices[0] : undefined;
  const body = only
    ? html`<p>You will no longer get ${describeTarget(policy, channel, only.target)}.</p>${
        only.lock ? html`<p>${lockNote(policy, channel, only)}</p>` : ''
      }`
    : html`<fieldset>
<legend>Unsubscribe from</legend>
${choices.map(
  (
    choice,
  ) => html`<div class="choice"><input type="radio" name="scope" id="scope-${choice.scope}" value="${choice.scope}"${
    choice === preselected ? html` checked` : ''
  }${preselected === undefined && !choice.lock ? html` required` : ''}${
    choice.lock ? html` disabled aria-describedby="lock-${choice.scope}"` : ''
  }>
<label for="scope-${choice.scope}">${capitalized(describeTarget(policy, channel, choice.target))}${
    choice.lock ? html`<br>${lockNote(policy, channel, choice)}` : ''
  }</label></div>`,
)}
</fieldset>`;
  return page(
    `Unsubscribe from ${channelNotifications(channel)}`,
    html`${
      open.length > 0
        ? html`<form method="post">
<input type="hidden" name="${FIELD}" value="${VALUE}">
${body}
<p><button type="submit">Unsubscribe</button></p>
</form>`
        : body
    }
<p>${preferencesLink(token)}, or change them where you use the service.</p>`,
  );
};

export const unsubscribedPage = (
  policy: Policy,
  channel: Channel,
  target: Target,
  token: string | undefined,
): string => {
  const kept = target.category === undefined ? stillSent(policy, channel) : [];
  return page(
    'You are unsubscribed',
    html`<p class="status" role="status">You will no longer get ${describeTarget(policy, channel, target)}${
      kept.length > 0 ? html`, except ${kept.join(', ')}: your organization always sends those` : ''
    }.</p>
<p>Changed your mind? ${preferencesLink(token)}.</p>`,
  );
};

export const lockedPage = (policy: Policy, channel: Channel, choice: Choice, token: string | undefined): string =>
  page(
    'Nothing was changed',
    html`<p class="status" role="status">${lockNote(policy, channel, choice)}</p>
<p>${preferencesLink(token)}.</p>`,
  );
