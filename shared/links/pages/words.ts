import type { Channel, DeliverySetting } from '#shared/api/channels.js';

/* How the pages say things: in plain words, never the API's names. */

export const CHANNEL_NAMES: Record<Channel, string> = { inbox: 'In-app inbox', email: 'Email', slack: 'Slack' };

/** "email notifications", "Slack notifications", "in-app inbox notifications". */
export const channelNotifications = (channel: Channel): string =>
  channel === 'inbox'
    ? 'in-app inbox notifications'
    : `${CHANNEL_NAMES[channel].replace('Email', 'email')} notifications`;

export const VALUE_WORDS: Record<DeliverySetting, string> = {
  ALL: 'Every notification',
  MINE: 'Only what involves me',
  NONE: 'None',
};
