import { ApiError } from './errors.js';

/**
 * Lambda returns at most 6 MB: an answer is kept under 5 MB of UTF-8 (contract, Identifiers and
 * limits). A route whose answer grows with its request computes the largest answer the request
 * can get, from the request alone, and refuses it with assertAnswerFits before any read or write.
 */
export const MAX_ANSWER_BYTES = 5_000_000;

/** The UTF-8 size of a value as JSON. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * Refuses a request whose answer could be `bytes` long when that is over MAX_ANSWER_BYTES, with
 * INVALID_ARGUMENT naming the limit, why the answer is that large (`because`) and what to send
 * instead (`instead`).
 */
export const assertAnswerFits = (bytes: number, because: string, instead: string): void => {
  if (bytes <= MAX_ANSWER_BYTES) return;
  throw new ApiError(
    'INVALID_ARGUMENT',
    `The answer to this request would be ${(bytes / 1e6).toFixed(1)} MB, over the limit of 5 MB (${MAX_ANSWER_BYTES} bytes of UTF-8): ${because}. ${instead}`,
  );
};
