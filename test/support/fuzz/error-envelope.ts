import { ERROR_HTTP_STATUS, type ErrorStatus } from '#shared/api/errors.js';

export interface EnvelopeCheck {
  httpStatus: number;
  contentType: string | undefined;
  body: unknown;
}

/** Asserts the contract's error envelope; returns the status, or throws a readable error. */
export const assertErrorEnvelope = ({ httpStatus, contentType, body }: EnvelopeCheck): ErrorStatus => {
  const fail = (why: string) => {
    throw new Error(`${why}: HTTP ${httpStatus} ${JSON.stringify(body)}`);
  };
  if (!contentType?.startsWith('application/json')) fail(`content type ${contentType}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('body is not an object');
  const record = body as Record<string, unknown>;
  if (Object.keys(record).join() !== 'error') fail('top-level keys are not exactly [error]');
  const error = record.error as Record<string, unknown>;
  const extra = Object.keys(error).filter((key) => !['message', 'status', 'details'].includes(key));
  if (extra.length) fail(`unexpected error keys ${extra}`);
  if (typeof error.message !== 'string' || !error.message) fail('message is not a non-empty string');
  const status = error.status as ErrorStatus;
  if (!(status in ERROR_HTTP_STATUS)) fail(`unknown status ${String(status)}`);
  if (ERROR_HTTP_STATUS[status] !== httpStatus) fail(`HTTP ${httpStatus} does not match ${status}`);
  if (httpStatus >= 500) fail('a bad request produced a 5xx');
  return status;
};
