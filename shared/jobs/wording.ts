import type { JobWording } from './kind.js';

/** What the engine's sentences need of a kind: its name, and for a failure its own ending. */
interface Named {
  name: string;
}
export interface Worded extends Named {
  wording: Pick<JobWording<never>, 'unfinished' | 'abandoned'>;
}

/** "Migration", for the start of a log line. */
export const titleOf = ({ name }: Named): string => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

/** The failure reason of a record whose message could not be queued (its request answered 503). */
export const notQueued = ({ name }: Named): string => `The ${name} could not be queued.`;

/** The 503 answer when the message could not be queued. */
export const queueUnavailable = ({ name }: Named): string =>
  `The ${name} could not be queued; the request is safe to retry.`;

/** The failure reason of a record whose start failed otherwise (its request answered an error). */
export const notStarted = ({ name }: Named): string => `The ${name} could not be started.`;

/** A record never queued, whose request died: shown and failed with this reason. */
export const abandonedReason = ({ name, wording }: Named & { wording?: Partial<Worded['wording']> }): string =>
  wording?.abandoned ?? `The ${name} could not be queued; start it again.`;

/** The failure reason of the queue's last attempt. */
export const failedAfter = (kind: Worded, attempts: number, errorName: string): string =>
  `The ${kind.name} failed after ${attempts} attempts (${errorName}); ${kind.wording.unfinished}`;

const quietFor = (ms: number): string =>
  ms >= 120_000 ? `${Math.floor(ms / 60_000)} minutes` : `${Math.max(1, Math.floor(ms / 1000))} seconds`;

/** The failure reason of a job the sweeper gave up on. */
export const stalledReason = (kind: Worded, quietMs: number, resumes: number): string =>
  `The ${kind.name} made no progress for ${quietFor(quietMs)} (re-queued ${resumes} times); ${kind.wording.unfinished}`;
