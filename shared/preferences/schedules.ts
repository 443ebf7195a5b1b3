import { apiEvidence, storeConsentText } from '#shared/consent/consent.js';
import type { Evidence } from '#shared/consent/evidence.js';
import type { ConsentTextStore } from '#shared/consent/text-store.js';
import { assertSnoozeWithin, type Schedule } from '#shared/schedules/schema.js';
import { REQUEST_WRITE_CONCURRENCY } from './batching.js';
import { type UserSetResult, type WriteOptions, writeEntries } from './entry-writes.js';
import type { EntryKey } from './model.js';
import type { GetScheduleRequest, GetScheduleResult } from './routes/get-schedule.js';
import type { SetScheduleRequest } from './routes/set-schedule.js';
import type { ScheduleStore } from './store.js';

export interface SetScheduleDeps {
  store: ScheduleStore;
  now?: () => Date;
  concurrency?: number;
  /** `link` for a change made from a link in an email. */
  cause?: 'link';
  /** How a person made the change from a link; without it, the API's evidence of `data.consent`. */
  evidence?: Evidence | undefined;
  /** Where a consent's text is stored; needed when a request states one. */
  texts?: ConsentTextStore | undefined;
}

/** Instants are kept in UTC, as every answer gives them. */
const stored = (schedule: Schedule): Schedule =>
  schedule.snoozeUntil ? { ...schedule, snoozeUntil: new Date(schedule.snoozeUntil).toISOString() } : schedule;

/**
 * docs/api.md, schedule/set: the whole schedule of each user in the organization, kept on their
 * organization-level entry, replaced (null: removed). Same per-user answer, 503 rule and
 * deadline as config/set; a write stamped older than the stored schedule's changes nothing.
 */
export const setSchedule = async (
  { store, now = () => new Date(), concurrency = REQUEST_WRITE_CONCURRENCY, cause, evidence, texts }: SetScheduleDeps,
  request: SetScheduleRequest,
  apiKey: string,
  { signal }: WriteOptions = {},
): Promise<Record<string, UserSetResult>> => {
  const requestTime = now();
  if (request.schedule) assertSnoozeWithin(request.schedule, requestTime);
  const schedule = request.schedule && stored(request.schedule);
  const meta = {
    updatedAt: requestTime.toISOString(),
    updatedBy: apiKey,
    ...(cause ? { cause } : {}),
    evidence: evidence ?? apiEvidence(request.consent, requestTime),
  };
  return writeEntries({
    organizationId: request.organizationId,
    userIds: request.userIds,
    concurrency,
    signal,
    first: () => storeConsentText(texts, request.organizationId, request.consent, requestTime),
    write: (key) => store.setSchedule(key, schedule, meta, { signal }),
    messages: {
      operation: 'schedule',
      subject: 'Schedule',
      done: 'Schedule set.',
      failed: 'Schedule could not be saved; retry the request.',
      couldNot: 'could not be saved',
    },
  });
};

/** docs/api.md, schedule/get: the user's schedule in the organization, or null. One read. */
export const getSchedule = async (
  { store }: { store: Pick<ScheduleStore, 'getEntries'> },
  { organizationId, userId }: GetScheduleRequest,
): Promise<GetScheduleResult> => {
  const key: EntryKey = { organizationId, userId, documentId: null };
  const [entry] = await store.getEntries([key]);
  return { userId, schedule: entry?.schedule ?? null };
};
