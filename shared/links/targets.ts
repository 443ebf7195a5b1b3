import type { Channel } from '#shared/api/channels.js';
import type { Locale } from '#shared/api/locales.js';
import { lockOf, type Policy, type Rule } from '#shared/policy/model.js';
import type { LinkState } from './link-state.js';
import type { OpenedLink } from './model.js';

/*
 * What an unsubscribe link acts on (docs/api.md, The pages: /u/{token} and /p/{token}): by default the entry of
 * its document (where its migrations led) and its category, or without a document the user's
 * organization-level entry (of its category). The page offers wider scopes: the category at the
 * organization level, or every notification of the channel from the organization.
 */

export const WIDER_SCOPES = ['document', 'category', 'organization'] as const;
export type WiderScope = (typeof WIDER_SCOPES)[number];

/** One layer of the user's entries: a document's or the organization level's, all categories or one. */
export interface Target {
  documentId: string | null;
  category?: string;
}

export interface Choice {
  scope: WiderScope;
  target: Target;
  /** The policy's lock on the link's channel for this target, if any: nothing changes then. */
  lock?: Rule;
}

/**
 * The label of a category in a language: the policy's for that locale, else its `label`, or the
 * category's id when the policy does not name it.
 */
export const categoryLabel = (policy: Policy, category: string, locale: Locale): string => {
  const categories = policy.categories;
  if (!categories || !Object.hasOwn(categories, category)) return category;
  const named = categories[category];
  return (
    (named?.labels && Object.hasOwn(named.labels, locale) ? named.labels[locale] : undefined) ??
    named?.label ??
    category
  );
};

/** A category's description in a language: the policy's for that locale, else its `description`. */
export const categoryDescription = (
  named: { description?: string; descriptions?: Record<string, string> },
  locale: Locale,
): string | undefined =>
  (named.descriptions && Object.hasOwn(named.descriptions, locale) ? named.descriptions[locale] : undefined) ??
  named.description;

const choice = (scope: WiderScope, target: Target, policy: Policy, channel: Channel): Choice => {
  const lock = lockOf(policy, channel, target.category);
  return { scope, target, ...(lock ? { lock } : {}) };
};

/** The choices of the link's page, narrowest (the link's own scope) first. */
export const choicesOf = (link: OpenedLink, state: LinkState): Choice[] => {
  const { policy } = state.policy;
  const category = link.category === undefined ? {} : { category: link.category };
  const choices: Choice[] = [];
  if (state.documentId !== undefined) {
    choices.push(choice('document', { documentId: state.documentId, ...category }, policy, link.channel));
  }
  if (link.category !== undefined)
    choices.push(choice('category', { documentId: null, ...category }, policy, link.channel));
  choices.push(choice('organization', { documentId: null }, policy, link.channel));
  return choices;
};

/** The choice a POST names (none: the link's own); undefined when the link cannot express it. */
export const chosen = (link: OpenedLink, state: LinkState, scope: string | undefined): Choice | undefined => {
  const choices = choicesOf(link, state);
  if (scope === undefined) return choices[0];
  return choices.find((candidate) => candidate.scope === scope);
};
