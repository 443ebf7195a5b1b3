import { CHANNELS, type Channel, type DeliverySetting, type FullChannelConfig } from '#shared/api/channels.js';
import { lockOf, type Policy, type Rule } from '#shared/policy/model.js';
import type { ChannelConfig, StoredEntry } from '#shared/preferences/model.js';
import type { LinkState } from './link-state.js';
import type { OpenedLink } from './model.js';
import { categoryLabel, type Target } from './targets.js';

/*
 * What the preference page shows and edits (docs/api.md, The preference page): rows, each one
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
  /** The organization-level rows: the policy's categories, then everything else. */
  organization: Row[];
  /** The document's rows, for a link with a document. */
  document: Row[];
}

type Layered = Pick<StoredEntry, 'config'> & { categories?: Record<string, { config: ChannelConfig }> };

/** The layer of `entry` a target names: its all-categories channels, or a category's. */
export const layerConfig = (entry: Layered | undefined, category: string | undefined): ChannelConfig | undefined => {
  if (!entry) return undefined;
  if (category === undefined) return entry.config;
  const categories = entry.categories;
  return categories && Object.hasOwn(categories, category) ? categories[category]?.config : undefined;
};

/**
 * The layers below a row, in the order that decides (docs/api.md, Categories and policy): for an
 * organization-level row, the organization's all-categories layer (under a category row), the
 * policy's rules, the deployment's default; for a document row, the same after the organization
 * level's category and all-categories layers.
 */
const fallbackOf = (
  state: LinkState,
  defaults: FullChannelConfig,
  target: Target,
  channel: Channel,
): DeliverySetting => {
  const { policy } = state.policy;
  const category = target.category;
  const candidates: (DeliverySetting | undefined)[] = [];
  if (target.documentId !== null && category !== undefined)
    candidates.push(layerConfig(state.document, undefined)?.[channel]);
  if (target.documentId !== null && category !== undefined)
    candidates.push(layerConfig(state.organization, category)?.[channel]);
  if (target.documentId !== null || category !== undefined)
    candidates.push(layerConfig(state.organization, undefined)?.[channel]);
  if (category !== undefined) {
    const own = ownRule(policy, category, channel);
    if (!own?.locked) candidates.push(own?.value);
  }
  const all = policy.channels?.[channel];
  if (!all?.locked) candidates.push(all?.value);
  return candidates.find((value) => value !== undefined) ?? defaults[channel];
};

const ownRule = (policy: Policy, category: string, channel: Channel): Rule | undefined => {
  const categories = policy.categories;
  return categories && Object.hasOwn(categories, category) ? categories[category]?.channels?.[channel] : undefined;
};

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
export const policyCategories = (policy: Policy): [string, { label: string; description?: string }][] =>
  Object.entries(policy.categories ?? {}).filter(([id]) => Object.hasOwn(policy.categories ?? {}, id));

export const pageModel = (link: OpenedLink, state: LinkState, defaults: FullChannelConfig): PageModel => {
  const { policy } = state.policy;
  const categories = policyCategories(policy);
  const organization = [
    ...categories.map(([id, category]) =>
      rowOf(state, defaults, `org/${id}`, { documentId: null, category: id }, category.label, category.description),
    ),
    rowOf(
      state,
      defaults,
      'org',
      { documentId: null },
      categories.length > 0 ? 'Everything else' : 'All notifications',
      categories.length > 0
        ? 'Notifications of any other kind, and of the kinds above that are left at the default.'
        : undefined,
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
          `${categoryLabel(policy, link.category)} on this document`,
        ),
      );
    }
    document.push(rowOf(state, defaults, 'doc', { documentId: state.documentId }, 'Everything about this document'));
  }
  return { organization, document };
};
