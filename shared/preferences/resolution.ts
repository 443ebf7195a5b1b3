import { CHANNELS, type Channel, type DeliverySetting, type FullChannelConfig } from '#shared/api/channels.js';
import { lockOf, type Policy, ruleOf } from '#shared/policy/model.js';
import { layerOf } from './layers.js';
import type { StoredEntry } from './model.js';
import type { ConfigSource } from './results.js';

/** One layer that has a value for a channel: where it comes from, and the value. */
export interface TraceStep {
  source: ConfigSource;
  value: DeliverySetting;
}

export interface Resolution {
  effective: Record<Channel, DeliverySetting>;
  source: Record<Channel, ConfigSource>;
}

export interface ResolutionInput {
  document?: StoredEntry | undefined;
  organization?: StoredEntry | undefined;
  /** The organization's policy ({} when it has none). */
  policy: Policy;
  /** The notification's category; without it the category layers are skipped. */
  category?: string | undefined;
  defaults: FullChannelConfig;
}

/**
 * Every layer that has a value for `channel`, in the order that decides (docs/api.md, Categories
 * and policy): a lock of the policy, the user's document entry (its category layer, then all
 * categories), the user's organization-level entry (the same two), the policy's rule (the
 * category's, then all categories'), the deployment default. The first is the winner. A locked
 * rule appears once, as `locked`.
 */
export const layersOf = (
  { document, organization, policy, category, defaults }: ResolutionInput,
  channel: Channel,
): TraceStep[] => {
  const steps: TraceStep[] = [];
  const add = (source: ConfigSource, value: DeliverySetting | undefined) => {
    if (value !== undefined) steps.push({ source, value });
  };
  const lock = lockOf(policy, channel, category);
  add('locked', lock?.value);
  if (category !== undefined) add('document:category', layerOf(document?.categories, category)?.config[channel]);
  add('document', document?.config[channel]);
  if (category !== undefined)
    add('organization:category', layerOf(organization?.categories, category)?.config[channel]);
  add('organization', organization?.config[channel]);
  if (category !== undefined) {
    const own = ruleOf(policy, channel, category);
    if (!own?.locked) add('policy:category', own?.value);
  }
  const all = ruleOf(policy, channel, undefined);
  if (!all?.locked) add('policy', all?.value);
  add('default', defaults[channel]);
  return steps;
};

/** Each channel's value and the layer it comes from: the first of layersOf. */
export const resolveChannels = (input: ResolutionInput): Resolution => {
  const effective = {} as Record<Channel, DeliverySetting>;
  const source = {} as Record<Channel, ConfigSource>;
  for (const channel of CHANNELS) {
    const [winner] = layersOf(input, channel) as [TraceStep];
    effective[channel] = winner.value;
    source[channel] = winner.source;
  }
  return { effective, source };
};

/** config/get's `explain`: every layer with a value, per channel. */
export const traceOf = (input: ResolutionInput): Record<Channel, TraceStep[]> =>
  Object.fromEntries(CHANNELS.map((channel) => [channel, layersOf(input, channel)])) as Record<Channel, TraceStep[]>;
