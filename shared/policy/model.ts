import type { Channel, DeliverySetting } from '#shared/api/channels.js';

/**
 * An organization's policy (docs/api.md, Categories and policy): default rules per channel, for
 * every category and per category, some locked so that no user choice overrides them. It is a
 * layer read at resolve time, never copied into users' entries, so a change reaches every user
 * at once.
 */
export interface Rule {
  value: DeliverySetting;
  /** Absent when false: the two mean the same. */
  locked?: true;
}

export type Rules = Partial<Record<Channel, Rule>>;

export interface CategoryPolicy {
  label: string;
  description?: string;
  /** The label in other languages, keyed by a shipped locale (the pages' languages). */
  labels?: Record<string, string>;
  /** The description in other languages, keyed like `labels`. */
  descriptions?: Record<string, string>;
  channels?: Rules;
}

export interface Policy {
  channels?: Rules;
  categories?: Record<string, CategoryPolicy>;
}

/** A policy as stored: the policy and its version (0 for an organization without one). */
export interface StoredPolicy {
  organizationId: string;
  policy: Policy;
  version: number;
  updatedAt?: string;
  updatedBy?: string;
}

export const noPolicy = (organizationId: string): StoredPolicy => ({ organizationId, policy: {}, version: 0 });

/** The rule of `channel` for `category` (or for all categories), if the policy has one. */
export const ruleOf = (policy: Policy, channel: Channel, category: string | undefined): Rule | undefined => {
  if (category === undefined) return policy.channels?.[channel];
  // An own property only: a category id such as `constructor` must not find Object's.
  const categories = policy.categories;
  return categories && Object.hasOwn(categories, category) ? categories[category]?.channels?.[channel] : undefined;
};

/** A locked rule wins over every user choice: the category's lock first, then the all-categories one. */
export const lockOf = (policy: Policy, channel: Channel, category: string | undefined): Rule | undefined => {
  const own = category === undefined ? undefined : ruleOf(policy, channel, category);
  if (own?.locked) return own;
  const all = ruleOf(policy, channel, undefined);
  return all?.locked ? all : undefined;
};
