import type { JobRecord } from './record.js';

/** The key of an item of the jobs table (the migrations table). */
export interface ItemKey {
  pk: string;
  sk: string;
}

/** A subject a job locks while it is active: a document of a migration, the user of an erasure. */
export interface LockSubject {
  subject: string;
  /** What the subject is to the job, stored on its lock (a migration's `source` or `target`). */
  role?: string;
}

/** The sentences that differ between kinds; the rest of the wording is the engine's (wording.ts). */
export interface JobWording<Request> {
  /** What a failed job leaves and what to do, ending its failure reasons: "start it again to finish." */
  unfinished: string;
  /** The failure reason of a record that lost a lock race to another request. */
  lostLock: string;
  /** The failure reason of a record never queued in its time; default: its request died before queuing. */
  abandoned?: string;
  /** The 503 answer when its locks kept changing hands during the start. */
  locksBusy: string;
  /** The status route's NOT_FOUND message (unknown ids and other organizations' alike). */
  notFound: string;
  /** The 409 message: a subject is locked by an active job of another request. */
  conflict(request: Request): string;
}

/**
 * One kind of job (a migration, an erasure): everything the engine needs to know about it. The
 * engine (start.ts, run.ts, view.ts, sweep.ts, repository.ts) does the rest, the same for every
 * kind; what a consumer run does page by page is the kind's step (step.ts), apart from this
 * definition so that the functions that only start, show or sweep jobs do not carry it.
 *
 * `R` is its record, `Request` what starts one (the record holds the request's fields), `View`
 * what its status route answers, `Id` the name of its id.
 */
export interface JobKind<
  R extends JobRecord & Request,
  Request extends { organizationId: string },
  View,
  Id extends string = string,
> {
  /** "migration": in log lines, failure reasons and messages. */
  name: string;
  /**
   * The record's id attribute ("migrationId"), also naming the holder on each lock, the queue
   * message's only key and the start route's answer. A plain attribute name (no reserved word).
   */
  idAttribute: Id;
  /** The record's key: `<keyPrefix><id>`, sort key RECORD ("MIGRATION#"). */
  keyPrefix: string;
  /** Its partition of the index of active jobs (keys.ts): what the sweeper queries for this kind. */
  activePartition: string;
  /** The counters a saved page adds to; 0 in a new record. */
  counters: readonly string[];
  /**
   * Fields a saved page sets besides its counts, with their initial value; dropped once the job
   * ends, completed or failed (they may hold user ids: a migration's skipped checkpoint).
   */
  pageFields?: Readonly<Record<string, unknown>>;
  /** Its own fields of a new record, from the request and the new id (the organization aside). */
  fields(request: Request, id: string): Partial<R>;
  /** The lock attribute naming the subject ("documentId"). */
  subjectAttribute: string;
  lockKey(organizationId: string, subject: string): ItemKey;
  /**
   * The subjects a job of this request locks, in the order they are taken. A live job holding the
   * same subjects is the same request: a repeat answers its id.
   */
  lockSubjects(request: Request): readonly LockSubject[];
  /** Attributes a record gets when it completes or fails (an erasure's expiry). */
  finished?(at: string): Record<string, unknown>;
  /** The status route's answer; `abandoned`: never queued and too old, answered as failed. */
  view(record: R, abandoned: boolean): View;
  wording: JobWording<Request>;
  /** Told when a job of this kind completes or is failed (a migration's business metrics). */
  ended?(status: 'completed' | 'failed'): void;
}

/** The id of a job's record. */
export const jobIdOf = (kind: { idAttribute: string }, record: JobRecord): string =>
  (record as unknown as Record<string, string>)[kind.idAttribute] as string;

/** The id under the kind's own name ({migrationId}), as log lines, messages, answers and error details carry it. */
export const idField = <Id extends string>(kind: { idAttribute: Id }, id: string): Record<Id, string> =>
  ({ [kind.idAttribute]: id }) as Record<Id, string>;
