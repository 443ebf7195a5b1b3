import { INTERNAL_MESSAGE } from '#shared/api/envelope.js';
import { type ApiError, type ErrorStatus, isApiError } from '#shared/api/errors.js';
import { isTransientDependencyError } from '#shared/platform/dependency-errors.js';

/**
 * The one registry from what went wrong to what is answered (docs/api.md, Errors), used by the
 * API's error middleware (middlewares/api-errors.ts) and the pages' (middlewares/page-errors.ts):
 * - `refused`: an ApiError, meant for the caller: its status, message and details as they are;
 * - `throttled`: a refused RESOURCE_EXHAUSTED that says when to come back: a Retry-After header too;
 * - `unavailable`: a dependency failed after its retries (or the deadline came first): safe to retry;
 * - `unexpected`: anything else: a generic message and the request id, never an internal.
 * Kinds are tried in this order; the first that matches answers.
 */

export type ErrorKind = 'throttled' | 'refused' | 'unavailable' | 'unexpected';

export interface ErrorAnswer {
  kind: ErrorKind;
  status: ErrorStatus;
  message: string;
  details?: unknown;
  headers: Record<string, string>;
  /** What is logged, if anything: the answer's own text for a refusal, the error itself otherwise. */
  log?: { level: 'warn' | 'error'; text: string };
}

const retryAfterOf = (error: ApiError): number | undefined => {
  const seconds = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === 'number' ? seconds : undefined;
};

const refusal = (error: ApiError): Omit<ErrorAnswer, 'kind' | 'headers'> => {
  return {
    status: error.status,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
    // A refusal in the 5xx range (a route's own UNAVAILABLE) is worth a line; a 4xx is the caller's.
    ...(error.httpStatus >= 500 ? { log: { level: 'warn' as const, text: 'Request failed' } } : {}),
  };
};

export const UNAVAILABLE_MESSAGE = 'A dependency is unavailable; the request is safe to retry.';

const ERROR_KINDS: readonly {
  kind: ErrorKind;
  matches: (error: unknown) => boolean;
  answer: (error: unknown, requestId: string) => Omit<ErrorAnswer, 'kind'>;
}[] = [
  {
    kind: 'throttled',
    matches: (error) => isApiError(error) && error.status === 'RESOURCE_EXHAUSTED' && retryAfterOf(error) !== undefined,
    answer: (error) => ({
      ...refusal(error as ApiError),
      headers: { 'retry-after': String(retryAfterOf(error as ApiError)) },
    }),
  },
  { kind: 'refused', matches: isApiError, answer: (error) => ({ ...refusal(error as ApiError), headers: {} }) },
  {
    kind: 'unavailable',
    matches: isTransientDependencyError,
    answer: (_, requestId) => ({
      status: 'UNAVAILABLE',
      message: UNAVAILABLE_MESSAGE,
      details: { requestId },
      headers: {},
      log: { level: 'error', text: 'Dependency unavailable' },
    }),
  },
  {
    kind: 'unexpected',
    matches: () => true,
    answer: (_, requestId) => ({
      status: 'INTERNAL',
      message: INTERNAL_MESSAGE,
      details: { requestId },
      headers: {},
      log: { level: 'error', text: 'Unexpected error' },
    }),
  },
];

/** What `error` is answered, by the first kind of the registry that matches it. */
export const answerFor = (error: unknown, requestId: string): ErrorAnswer => {
  const entry = ERROR_KINDS.find(({ matches }) => matches(error)) as (typeof ERROR_KINDS)[number];
  return { kind: entry.kind, ...entry.answer(error, requestId) };
};
