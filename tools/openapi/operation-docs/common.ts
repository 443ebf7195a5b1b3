import type { z } from 'zod';
import type { ErrorBody } from '#shared/api/envelope.js';
import { type ErrorStatus, UNAUTHENTICATED_MESSAGE } from '#shared/api/errors.js';
import { MAX_BODY_BYTES, MAX_IDENTIFIER_LENGTH } from '#shared/api/identifiers.js';
import type { Route } from '#shared/platform/route.js';
import type { FieldDocs } from '../field-docs.js';

/**
 * What the documentation says of an operation beside its route (shared/<domain>/routes/): the
 * words, examples and error cases that the OpenAPI document, the docs page, the typed client and
 * the smoke test show. Build-time only: no function bundles it.
 */
export interface ErrorCase {
  status: ErrorStatus;
  when: string;
}

export interface NamedExample<T> {
  summary: string;
  value: T;
}

export interface OperationDocs<R extends Route = Route> {
  /** Groups operations in the document. */
  tag: string;
  /** Component names: `<name>Request`, `<name>RequestBody`, `<name>Result`, `<name>Response`. */
  name: string;
  summary: string;
  description: string;
  errors: ErrorCase[];
  /**
   * Real requests (the value of `data`), each with the `result.data` the service answers when the
   * examples of all operations run in table order on empty tables (a test does exactly that).
   */
  examples: Record<string, NamedExample<z.input<R['request']>> & { result: z.output<ReturnType<R['result']>> }>;
  /** Invalid `data` whose real INVALID_ARGUMENT answer is shown as an example. */
  invalidExample: NamedExample<unknown>;
  /** Route-specific error answers shown as examples. */
  errorExamples?: Record<string, NamedExample<ErrorBody>>;
  /** What the fields of `data` and `result.data` mean, by path (field-docs.ts), each where it is used. */
  fields?: { request?: FieldDocs; result?: FieldDocs };
  /**
   * When the same request sent again is not the same as sending it once, if the first may have
   * been applied (no answer, or a 503 that may have come after the work): the typed client then
   * does not resend it on its own. `why` says why; `onlyWith` names a field of `data` without
   * which a repeat is safe. Left out: a repeat gives the state one request would.
   */
  notRepeatable?: { why: string; onlyWith?: string };
}

export const IDENTIFIER_RULE =
  `Identifiers are 1 to ${MAX_IDENTIFIER_LENGTH} characters (UTF-16 code units), without control characters ` +
  '(Unicode Cc) and well-formed Unicode; any other character round-trips exactly.';
export const BODY_RULE = `The body is at most ${MAX_BODY_BYTES} bytes (1 MiB).`;

/** Errors every route can answer (docs/api.md, Wire protocol and Authentication). */
export const COMMON_ERRORS: ErrorCase[] = [
  {
    status: 'INVALID_ARGUMENT',
    when:
      'Not POST; Content-Type not application/json; a Content-Encoding other than identity (the body must be ' +
      'uncompressed UTF-8); ' +
      'empty, non-JSON or non-object body; missing `data` or another ' +
      'top-level key; a schema violation or a limit exceeded. `message` names the first offending field, `details` ' +
      'lists every issue as {path, message}.',
  },
  {
    status: 'UNAUTHENTICATED',
    when: `Missing header, unknown, revoked or expired API key, or wrong token; always "${UNAUTHENTICATED_MESSAGE}" Checked before the body.`,
  },
  {
    status: 'PERMISSION_DENIED',
    when: 'The credential lacks the scope the route needs (checked before the body), or is not granted `data.organizationId`.',
  },
  {
    status: 'RESOURCE_EXHAUSTED',
    when:
      "The credential's request rate is exceeded: `details.retryAfterSeconds` and the `Retry-After` header say when to " +
      'come back. API Gateway stage throttling answers 429 with its own body {"message":"Too Many Requests"}.',
  },
  {
    status: 'INTERNAL',
    when: 'Unexpected failure: a generic message and `details.requestId` to quote to operators. A crashed function answers API Gateway\'s {"message":"Internal Server Error"}.',
  },
  {
    status: 'UNAVAILABLE',
    when: 'A dependency failed after retries; the request is safe to retry. A timed-out function answers API Gateway\'s {"message":"Service Unavailable"}.',
  },
];

/** Errors of the routes that write per-user entries (config/set, config/reset). */
export const WRITE_ERRORS: ErrorCase[] = [
  ...COMMON_ERRORS.filter((error) => error.status !== 'UNAVAILABLE'),
  {
    status: 'UNAVAILABLE',
    when: 'Some writes failed after retries: `details` is the per-user map, failed users with `success: false`. Safe to retry.',
  },
];

/** The common errors with INVALID_ARGUMENT's case extended by `more`. */
export const withInvalidArgument = (more: string, errors: ErrorCase[] = COMMON_ERRORS): ErrorCase[] => [
  { status: 'INVALID_ARGUMENT', when: `${COMMON_ERRORS[0]?.when} ${more}` },
  ...errors.filter((error) => error.status !== 'INVALID_ARGUMENT'),
];

/** The common errors with NOT_FOUND's case before those a dependency or throttling causes. */
export const withNotFound = (when: string): ErrorCase[] => {
  const late = (error: ErrorCase) =>
    error.status === 'RESOURCE_EXHAUSTED' || error.status === 'INTERNAL' || error.status === 'UNAVAILABLE';
  return [
    ...COMMON_ERRORS.filter((error) => !late(error)),
    { status: 'NOT_FOUND', when },
    ...COMMON_ERRORS.filter(late),
  ];
};

/** ISO-8601 times, wherever a result has one. */
export const TIME = 'ISO-8601 UTC time.';
