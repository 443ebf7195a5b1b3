import { CHANNELS, type Channel, type DeliverySetting, type FullChannelConfig } from '#shared/api/channels.js';
import { type CategoryPolicy, lockOf, type Policy, type Rule } from '#shared/policy/model.js';
import { layerOf } from '#shared/preferences/layers.js';
import type { ChannelConfig, StoredEntry } from '#shared/preferences/model.js';
import { layersOf } from '#shared/preferences/resolution.js';
import { CONFIG_SOURCES, type ConfigSource } from '#shared/preferences/results.js';
import type { Words } from './i18n/words.js';
import type { LinkState } from './link-state.js';
import type { OpenedLink } from './model.js';
import { categoryDescription, categoryLabel, type Target } from './targets.js';

/*
 * What the preference page shows and edits (docs/api.md, The pages: /u/{token} and /p/{token}): rows, each one
 * layer of the user's entries (the organization level for every category without its own
 * setting, each category of the policy, and with a document link that document's entry), and per
 * row each channel: the value stored in that layer, or "use the default", which names what the
 * next layer gives now; a channel the policy locks is shown with its value and not editable.
 */

export interface Cell {
  channel: Channel;
  /** The value stored in this layer, if any. */
  value?: DeliverySetting;
  /** What applies without this layer's value ("use the default"): the next layer's. */
  fallback: DeliverySetting;
  /** The policy's lock, if the channel is locked here: its value applies, and the cell is not editable. */
  lock?: Rule;
}

export interface Row {
  /** The form's name of the row: `org`, `org/<category>`, `doc`, `doc/<category>`. */
  key: string;
  target: Target;
  title: string;
  description?: string;
  cells: Cell[];
}

export interface PageModel {
  /** The organization-level rows: the policy's categories, then the others the user has or the link names, then everything else. */
  organization: Row[];
  /** The document's rows, for a link with a document. */
  document: Row[];
}

/** The layer of `entry` a target names: its all-categories channels, or a category's. */
export const layerConfig = (entry: StoredEntry | undefined, category: string | undefined): ChannelConfig | undefined =>
  category === undefined ? entry?.config : layerOf(entry?.categories, category)?.config;

/** The row's own layer among the sources of the resolution (preferences/resolution.ts). */
const sourceOf = (target: Target): ConfigSource =>
  target.documentId === null
    ? target.category === undefined
      ? 'organization'
      : 'organization:category'
    : target.category === undefined
      ? 'document'
      : 'document:category';

/**
 * What applies without the row's own value: the next layer of the resolution of its category at
 * its level (an organization-level row sees no document), as config/get and config/resolve
 * resolve it. A lock aside: a locked cell is not editable.
 */
const fallbackOf = (
  state: LinkState,
  defaults: FullChannelConfig,
  target: Target,
  channel: Channel,
): DeliverySetting => {
  const own = sourceOf(target);
  const steps = layersOf(
    {
      ...(target.documentId === null ? {} : { document: state.document }),
      organization: state.organization,
      policy: state.policy.policy,
      category: target.category,
      defaults,
    },
    channel,
  );
  // The layers above the row's own (a document's, seen from its category row) are not what
  // "use the default" falls back to: only those after it.
  const at = steps.findIndex((step) => step.source === own);
  const after =
    at === -1 ? steps.filter((step) => step.source !== 'locked' && isBelow(step.source, own)) : steps.slice(at + 1);
  return (after.find((step) => step.source !== 'locked') ?? { value: defaults[channel] }).value;
};

const ORDER: readonly ConfigSource[] = CONFIG_SOURCES;
const isBelow = (source: ConfigSource, own: ConfigSource) => ORDER.indexOf(source) > ORDER.indexOf(own);

const rowOf = (
  state: LinkState,
  defaults: FullChannelConfig,
  key: string,
  target: Target,
  title: string,
  description?: string,
): Row => {
  const entry = target.documentId === null ? state.organization : state.document;
  const stored = layerConfig(entry, target.category);
  return {
    key,
    target,
    title,
    ...(description ? { description } : {}),
    cells: CHANNELS.map((channel): Cell => {
      const value = stored?.[channel];
      const lock = lockOf(state.policy.policy, channel, target.category);
      return {
        channel,
        ...(value === undefined ? {} : { value }),
        fallback: fallbackOf(state, defaults, target, channel),
        ...(lock ? { lock } : {}),
      };
    }),
  };
};

/** The policy's categories, in its order (own properties only). */
export const policyCategories = (policy: Policy): [string, CategoryPolicy][] =>
  Object.entries(policy.categories ?? {}).filter(([id]) => Object.hasOwn(policy.categories ?? {}, id));

/**
 * Categories the organization level holds a setting for, or the link names, that the policy does
 * not list: an unsubscribe from "this category on every document" writes one (a link may name any
 * category), and the page must let the person see and undo it. Sorted, after the policy's own.
 */
const otherCategories = (link: OpenedLink, state: LinkState, policy: Policy): string[] => {
  const listed = new Set(policyCategories(policy).map(([id]) => id));
  const stored = Object.keys(state.organization?.categories ?? {});
  const named = link.category === undefined ? [] : [link.category];
  return [...new Set([...named, ...stored])].filter((id) => !listed.has(id)).sort();
};

/** The page's rows, their titles in the words' language. */
export const pageModel = (link: OpenedLink, state: LinkState, defaults: FullChannelConfig, words: Words): PageModel => {
  const { policy } = state.policy;
  const { locale } = words;
  const categories = policyCategories(policy);
  const others = otherCategories(link, state, policy);
  const organization = [
    ...categories.map(([id, category]) =>
      rowOf(
        state,
        defaults,
        `org/${id}`,
        { documentId: null, category: id },
        categoryLabel(policy, id, locale),
        categoryDescription(category, locale),
      ),
    ),
    ...others.map((id) => rowOf(state, defaults, `org/${id}`, { documentId: null, category: id }, id)),
    rowOf(
      state,
      defaults,
      'org',
      { documentId: null },
      categories.length + others.length > 0 ? words.t('row.everythingElse') : words.t('row.all'),
      categories.length + others.length > 0 ? words.t('row.everythingElseNote') : undefined,
    ),
  ];
  const document: Row[] = [];
  if (state.documentId !== undefined) {
    if (link.category !== undefined) {
      document.push(
        rowOf(
          state,
          defaults,
          `doc/${link.category}`,
          { documentId: state.documentId, category: link.category },
          words.t('row.documentCategory', { category: categoryLabel(policy, link.category, locale) }),
        ),
      );
    }
    document.push(rowOf(state, defaults, 'doc', { documentId: state.documentId }, words.t('row.document')));
  }
  return { organization, document };
};
