import { CHANNELS, type Channel } from '#shared/api/channels.js';
import type { CategoryLayers, ChannelConfig, LayerChannels } from './model.js';

export type { CategoryLayers, LayerChannels } from './model.js';

/*
 * The layers of one stored entry (docs/design.md, Categories): the all-categories layer, whose
 * channels are the item's `inbox`, `email` and `slack` attributes as they always were, and one
 * layer per category, flat in the same item:
 *
 *   c:<category>:<channel>     the category layer's value of that channel
 *   c:<category>:<channel>At   its write time (like `<channel>At` of the all-categories layer)
 *   categoryIds                String Set of the categories that hold a value: what the limit
 *                              of MAX_CATEGORY_LAYERS counts, in one condition
 *
 * Flat attributes, not a map: an UpdateItem can set one channel of one layer on its own, with
 * its own time condition, on an item that has no such layer yet (a nested map path cannot be
 * set under a map that does not exist). A category id holds no `:`, so every name parses back.
 */

/** Contract: an entry holds at most 100 category layers. */
export const MAX_CATEGORY_LAYERS = 100;

export const CATEGORY_SET_ATTRIBUTE = 'categoryIds';

/** Where a channel's value is stored: the all-categories layer (no category) or a category's. */
export const channelAttribute = (channel: Channel, category?: string): string =>
  category === undefined ? channel : `c:${category}:${channel}`;

/** Where a channel's write time is stored: a top-level attribute, so an update can set it alone. */
export const channelTimeAttribute = (channel: Channel, category?: string): string =>
  `${channelAttribute(channel, category)}At`;

const CATEGORY_ATTRIBUTE = /^c:([a-z0-9][a-z0-9._-]*):(inbox|email|slack)(At)?$/;

/** The category layers an item holds (values and times); layers with neither are absent. */
export const categoryLayersOf = (item: Record<string, unknown>): CategoryLayers => {
  const layers: CategoryLayers = Object.create(null);
  for (const [name, value] of Object.entries(item)) {
    const match = CATEGORY_ATTRIBUTE.exec(name);
    if (!match || typeof value !== 'string') continue;
    const [, category, channel, time] = match as unknown as [string, string, Channel, string | undefined];
    layers[category] ??= { config: {} };
    const layer = layers[category];
    if (time) {
      layer.channelAt ??= {};
      layer.channelAt[channel] = value;
    } else {
      layer.config[channel] = value as ChannelConfig[Channel];
    }
  }
  return layers;
};

/** The attributes of category layers, as written by a whole-item put (migration). */
export const categoryLayerAttributes = (layers: CategoryLayers | undefined): Record<string, unknown> => {
  const attributes: Record<string, unknown> = {};
  const held: string[] = [];
  for (const [category, layer] of Object.entries(layers ?? {})) {
    for (const channel of CHANNELS) {
      const value = layer.config[channel];
      const at = layer.channelAt?.[channel];
      if (value !== undefined) attributes[channelAttribute(channel, category)] = value;
      if (at !== undefined) attributes[channelTimeAttribute(channel, category)] = at;
    }
    if (hasValue(layer.config)) held.push(category);
  }
  if (held.length > 0) attributes[CATEGORY_SET_ATTRIBUTE] = new Set(held);
  return attributes;
};

export const hasValue = (config: ChannelConfig): boolean => CHANNELS.some((channel) => config[channel] !== undefined);

/**
 * The stored values of each category layer that holds one, by category id (what config/get
 * answers as `categories`), in id order: the item's map comes back from DynamoDB in no order of
 * its own, and a client comparing two answers should not see a difference that is not there.
 */
export const categoryConfigs = (layers: CategoryLayers | undefined): Record<string, ChannelConfig> => {
  const configs: Record<string, ChannelConfig> = {};
  const byId = Object.entries(layers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [category, layer] of byId) {
    // A category id never is `__proto__` (categories.ts), so assignment makes an own property.
    if (hasValue(layer.config)) configs[category] = { ...layer.config };
  }
  return configs;
};

/** A category's layer of an entry, if it holds one (never an inherited property). */
export const layerOf = (layers: CategoryLayers | undefined, category: string): LayerChannels | undefined =>
  layers && Object.hasOwn(layers, category) ? layers[category] : undefined;
