import { CHANNELS, type Channel } from '#shared/api/channels.js';
import { type DigestLike, firstFreeInstant, isQuiet, nextDigestSlot, type QuietHoursLike } from './next-instant.js';
import { SNOOZE_CHANNELS } from './schema.js';

// What a channel does with an activity at a time (contract 12.2): the first rule that applies
// decides. A pure function of its inputs: the same inputs give the same answer.

export const PRIORITIES = ['normal', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const DECISION_ACTIONS = ['send', 'defer', 'digest', 'suppress'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];
export const DECISION_REASONS = ['preference', 'digest', 'snoozed', 'quiet_hours'] as const;
export type DecisionReason = (typeof DECISION_REASONS)[number];

export interface ChannelDecision {
  action: DecisionAction;
  /** When to deliver (defer, digest): a UTC ISO-8601 instant. */
  deliverAt?: string;
  reason: DecisionReason;
}

/** What a decision reads of a schedule (its stored form, or the schema's output). */
export interface ScheduleLike extends QuietHoursLike {
  snoozeUntil?: string | null | undefined;
  digest?: (DigestLike & { channels: readonly Channel[] }) | undefined;
}

export interface ChannelDecisionInput {
  channel: Channel;
  /** The preference's answer for the channel (contract section 7's `deliver`). */
  deliver: boolean;
  priority: Priority;
  at: Date;
  /** The user's schedule in the organization, if any (validated by the schedule schema). */
  schedule: ScheduleLike | null | undefined;
}

const instantOf = (name: string, value: number): number => {
  if (!Number.isFinite(value)) throw new RangeError(`${name} is not a valid instant`);
  return value;
};

const iso = (instant: number): string => new Date(instant).toISOString();

/**
 * The end of the snooze that covers `channel` at `at`, if one does: the snooze covers email and
 * Slack (never the inbox) while `at` is before `snoozeUntil`.
 */
const activeSnoozeEnd = (schedule: ScheduleLike, channel: Channel, at: number): number | undefined => {
  if (schedule.snoozeUntil === undefined || schedule.snoozeUntil === null) return undefined;
  if (!SNOOZE_CHANNELS.includes(channel)) return undefined;
  const until = instantOf('snoozeUntil', Date.parse(schedule.snoozeUntil));
  return at < until ? until : undefined;
};

/**
 * One channel's decision, by the ordered rules of contract 12.2:
 * 1. suppress (preference): the preference says no;
 * 2. send (preference): the priority is urgent;
 * 3. digest (digest): the channel is in the digest; deliverAt is the first digest slot at or
 *    after `at`, or at or after `snoozeUntil` while a snooze covers the channel (quiet hours do
 *    not move it);
 * 4. defer (snoozed): a snooze covers the channel and `at` is before `snoozeUntil`; deliverAt is
 *    the first instant at or after `snoozeUntil` outside every quiet window of the channel;
 * 5. defer (quiet_hours): `at` is inside a quiet window of the channel; deliverAt is the first
 *    instant at or after `at` outside every window;
 * 6. send (preference).
 */
export const decideChannel = ({ channel, deliver, priority, at, schedule }: ChannelDecisionInput): ChannelDecision => {
  const now = instantOf('at', at.getTime());
  if (!deliver) return { action: 'suppress', reason: 'preference' };
  if (priority === 'urgent' || !schedule) return { action: 'send', reason: 'preference' };
  const snoozeEnd = activeSnoozeEnd(schedule, channel, now);
  if (schedule.digest?.channels.includes(channel)) {
    const slot = nextDigestSlot(schedule.timeZone, schedule.digest, snoozeEnd ?? now);
    return { action: 'digest', deliverAt: iso(slot), reason: 'digest' };
  }
  if (snoozeEnd !== undefined) {
    return { action: 'defer', deliverAt: iso(firstFreeInstant(schedule, channel, snoozeEnd)), reason: 'snoozed' };
  }
  if (isQuiet(schedule, channel, now)) {
    return { action: 'defer', deliverAt: iso(firstFreeInstant(schedule, channel, now)), reason: 'quiet_hours' };
  }
  return { action: 'send', reason: 'preference' };
};

/** The decisions of the three channels of one user, each by decideChannel. */
export const decideChannels = ({
  deliver,
  priority,
  at,
  schedule,
}: {
  deliver: Record<Channel, boolean>;
  priority: Priority;
  at: Date;
  schedule: ScheduleLike | null | undefined;
}): Record<Channel, ChannelDecision> => {
  const decisions = {} as Record<Channel, ChannelDecision>;
  for (const channel of CHANNELS) {
    decisions[channel] = decideChannel({ channel, deliver: deliver[channel], priority, at, schedule });
  }
  return decisions;
};
