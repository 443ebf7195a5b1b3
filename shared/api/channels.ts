import * as z from 'zod/mini';

/** The channels a delivery setting exists for, and the values it takes (docs/api.md, POST /v2/notifications/config/set). */
export const CHANNELS = ['inbox', 'email', 'slack'] as const;
export type Channel = (typeof CHANNELS)[number];

export const DELIVERY_SETTINGS = ['ALL', 'MINE', 'NONE'] as const;
export const ONE_OF_DELIVERY_SETTINGS = `one of ${DELIVERY_SETTINGS.join(', ')}`;
/** One schema for a channel's value wherever it is read: requests, the environment, CDK context. */
export const deliverySetting = z.enum(DELIVERY_SETTINGS, { error: `must be ${ONE_OF_DELIVERY_SETTINGS}` });
export type DeliverySetting = z.infer<typeof deliverySetting>;

export type FullChannelConfig = Record<Channel, DeliverySetting>;

/** The deployment defaults unless a stage configures others: the last layer of every read. */
export const BUILT_IN_DEFAULTS: FullChannelConfig = { inbox: 'ALL', email: 'MINE', slack: 'NONE' };
