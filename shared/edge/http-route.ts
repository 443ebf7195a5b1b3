import type { MiddlewareObj, Request } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { errorAnswer, INTERNAL_MESSAGE, successAnswer } from '#shared/api/envelope.js';
import { ApiError, isApiError } from '#shared/api/errors.js';
import { MAX_BODY_BYTES } from '#shared/api/identifiers.js';
import type { Authenticator } from '#shared/auth/authenticator.js';
import { createAuthenticator, createRateLimiter } from '#shared/auth/create-authenticator.js';
import {
  type Credential,
  grantsOrganization,
  hasScope,
  permissionDenied,
  scopeDenied,
} from '#shared/auth/credential.js';
import type { RateLimiter } from '#shared/auth/rate-limit.js';
import { isTransientDependencyError } from '#shared/platform/dependency-errors.js';
import { logger } from '#shared/platform/logger.js';
import { countRateLimited } from '#shared/platform/metrics.js';
import type { Route } from '#shared/platform/route.js';
import { DEADLINE_MARGIN_MS, routeSignal } from './deadlines.js';
import { observed } from './observed.js';

/**
 * The HTTP edge of every API route (docs/api.md, Wire protocol and Authentication), in one place:
 * authenticate the two headers first (an unauthenticated caller learns nothing of the body rules),
 * then one check of the request (method, content type, bytes, JSON, envelope, the route's schema),
 * the organization grant, the route's domain call, and the `{result}` / `{error}` envelope around
 * whatever it answers or throws.
 */

export interface ApiContext extends Context {
  credential?: Credential;
}

export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: ApiContext,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface RouteInput<T> {
  data: T;
  credential: Credential;
  /** Aborted ROUTE_STOP_MS before the route's deadline: stop issuing writes then, and answer what was done. */
  signal: AbortSignal;
  /** Where the request came to (links/create builds its links on the API's own address). */
  domainName: string | undefined;
}

export { DEADLINE_MARGIN_MS, ROUTE_STOP_MS } from './deadlines.js';

// --- The request: one check, from the event's bytes to the route's typed `data` ---

// `application/json`, any letter case, optionally followed by parameters such as charset (with
// or without spaces around the `;`).
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;.*)?$/i;

// fatal: bytes that are not UTF-8 fail instead of becoming U+FFFD (two different ids would then
// share storage). ignoreBOM keeps a byte-order mark, as a text body keeps it: not JSON.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const invalid = (message: string, details?: unknown) => new ApiError('INVALID_ARGUMENT', message, details);
const bodyTooLarge = () => invalid(`Request body must be at most 1 MiB (${MAX_BODY_BYTES} bytes).`);
const NOT_AN_ENVELOPE = 'Request body must be a JSON object with a single key, data.';

/** The body as text: API Gateway passes bytes it cannot pass as text base64-encoded; they are decoded strictly. */
const bodyText = (event: APIGatewayProxyEventV2): string => {
  if (!event.isBase64Encoded || !event.body) return event.body ?? '';
  const bytes = Buffer.from(event.body, 'base64');
  if (bytes.length > MAX_BODY_BYTES) throw bodyTooLarge();
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalid('Request body must be valid UTF-8.');
  }
};

const PROTO_KEY =
  'Request body must not hold a key named __proto__: no field has that name, and no map is keyed by it.';

// JSON.parse defines a `__proto__` key as an own property (no prototype is touched), and the
// routes' strict objects refuse it as an unknown key; but a map keyed by ids (a policy's
// categories) would drop it unseen when validated. So no such key is taken at all. Only a body
// that could spell one (plainly or with a \u escape) pays for the reviver.
const refuseProtoKey = (key: string, value: unknown) => {
  if (key === '__proto__') throw invalid(PROTO_KEY);
  return value;
};

// JSON has no byte-order mark; said plainly, since the parser's own message shows an invisible character.
const BOM_MESSAGE = 'Request body must be valid JSON: it starts with a byte-order mark (U+FEFF); send it without one.';

const parseJson = (text: string): unknown => {
  if (text.charCodeAt(0) === 0xfeff) throw invalid(BOM_MESSAGE);
  try {
    return text.includes('__proto__') || text.includes('\\u') ? JSON.parse(text, refuseProtoKey) : JSON.parse(text);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw invalid(`Request body must be valid JSON: ${(error as Error).message}.`);
  }
};

export interface IssueDetail {
  path: string;
  message: string;
}

/** Renders a zod path the way a client writes it: data.userIds[3]. */
export const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (text, segment) =>
      typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${String(segment)}` : String(segment),
    '',
  ) || 'body';

const wrapIn = <S extends z.core.$ZodType>(schema: S) =>
  z.strictObject({ data: schema }, { error: (issue) => (issue.code === 'invalid_type' ? NOT_AN_ENVELOPE : undefined) });

// Built once per route schema: a new zod object schema is compiled on its first parse, so
// building one per request would pay that on every request.
const envelopes = new WeakMap<z.core.$ZodType, ReturnType<typeof wrapIn>>();
const envelope = <S extends z.core.$ZodType>(schema: S) => {
  const known = envelopes.get(schema);
  if (known) return known;
  const wrapped = wrapIn(schema);
  envelopes.set(schema, wrapped);
  return wrapped;
};

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/**
 * Wording for issues no schema words itself: zod/mini ships no locale, so its own default is a
 * bare "Invalid input". Schema-level messages take precedence over this map.
 */
const fallbackMessage = (issue: z.core.$ZodRawIssue): string | undefined =>
  issue.code === 'invalid_type' ? `must be ${article(issue.expected)}` : undefined;

/** The keys an object schema at `path` of `schema` knows (through optional, nullable and array wrappers); none if it is no object. */
const knownKeysAt = (schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] => {
  let current: z.core.$ZodType | undefined = schema;
  const unwrap = () => {
    for (let guard = 0; current && guard < 8; guard++) {
      const def = current._zod.def as { type: string; innerType?: z.core.$ZodType };
      if (!['optional', 'nullable', 'default'].includes(def.type) || !def.innerType) return;
      current = def.innerType;
    }
  };
  for (const segment of path) {
    unwrap();
    const def = current?._zod.def as {
      type?: string;
      shape?: Record<string, z.core.$ZodType>;
      element?: z.core.$ZodType;
    };
    if (typeof segment === 'number') current = def?.type === 'array' ? def.element : undefined;
    else if (typeof segment === 'string' && def?.type === 'object' && def.shape && Object.hasOwn(def.shape, segment))
      current = def.shape[segment];
    else current = undefined;
  }
  unwrap();
  const def = current?._zod.def as { type?: string; shape?: Record<string, unknown> } | undefined;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : [];
};

/** A known key the unknown one is a slip of: a singular for a plural (or the reverse), or another letter case. */
const meant = (key: string, known: readonly string[]): string | undefined =>
  known.find((candidate) => candidate === `${key}s` || `${candidate}s` === key) ??
  known.find((candidate) => candidate.toLowerCase() === key.toLowerCase());

/** "data has an unknown key: documentId (did you mean documentIds?)" */
const unknownKeysMessage = (where: string, keys: readonly string[], known: readonly string[]): string => {
  const hints = keys.map((key) => meant(key, known)).filter((hint): hint is string => hint !== undefined);
  const hint = hints.length > 0 ? ` (did you mean ${hints.join(', ')}?)` : '';
  return `${where} has ${keys.length === 1 ? 'an unknown key' : 'unknown keys'}: ${keys.join(', ')}${hint}`;
};

/**
 * Checks a parsed body against `{data}` and the route's schema. A failure is INVALID_ARGUMENT
 * whose message names the first offending field and whose details list every issue.
 */
export const parseCallableBody = <S extends z.core.$ZodType>(schema: S, body: unknown): z.infer<S> => {
  const parsed = envelope(schema).safeParse(body, { reportInput: true, error: fallbackMessage });
  if (parsed.success) return (parsed.data as { data: z.infer<S> }).data;
  const issues: IssueDetail[] = parsed.error.issues.map((issue) => {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(envelope(schema), issue.path);
      return { path, message: unknownKeysMessage(path === 'body' ? 'The request body' : path, issue.keys, known) };
    }
    if (issue.code === 'invalid_type' && issue.input === undefined && path !== 'body') {
      return { path, message: `${path} is required` };
    }
    return { path, message: issue.message };
  });
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  const message = first
    ? first.path === 'body' || first.message.startsWith(first.path)
      ? first.message
      : `${first.path}: ${first.message}`
    : 'Invalid request.';
  throw invalid(`${message}${more}`, issues);
};

const CONTENT_ENCODING_MESSAGE = 'Content-Encoding is not supported: send the body uncompressed.';

/** The one check of a request, after authentication: method, content type, encoding, bytes, JSON, envelope and schema. */
export const readRequest = <S extends z.core.$ZodType>(schema: S, event: APIGatewayProxyEventV2): z.infer<S> => {
  const method = event.requestContext?.http?.method ?? 'POST';
  if (method !== 'POST') throw invalid(`Method ${method} is not allowed; use POST.`);
  const contentType = event.headers?.['content-type'];
  if (!contentType || !JSON_CONTENT_TYPE.test(contentType)) throw invalid('Content-Type must be application/json.');
  // A compressed body would otherwise read as bytes that are not UTF-8, a misleading answer.
  const encoding = event.headers?.['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') throw invalid(CONTENT_ENCODING_MESSAGE);
  const text = bodyText(event);
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) throw bodyTooLarge();
  // No body is answered as a body that is no object is: the same message and details.
  return parseCallableBody(schema, text.length === 0 ? undefined : parseJson(text));
};

// --- Authentication, with a deadline of its own ---

/**
 * Middy's early timeout covers the route handler only, not a middleware's `before`: without a
 * deadline of its own a credential lookup in SDK backoff (throttling backs off for up to ~15 s)
 * would run into the Lambda timeout, which API Gateway answers outside the envelope. Past the
 * deadline it fails as a TimeoutError, a transient error: 503 UNAVAILABLE.
 */
const beforeDeadline = async <T>(context: Context, work: Promise<T>): Promise<T> => {
  const remaining =
    typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  if (remaining === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(Object.assign(new Error('Authentication did not finish before the deadline'), { name: 'TimeoutError' })),
      Math.max(0, remaining - DEADLINE_MARGIN_MS),
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

// --- The envelope ---

/** What a route's domain call returns; the middleware wraps it in `{result}`. */
interface CallableResult {
  message: string;
  data: unknown;
}

type ApiRequest = Request<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2 | CallableResult,
  Error,
  ApiContext
>;

const isCallableResult = (value: unknown): value is CallableResult =>
  typeof value === 'object' && value !== null && 'message' in value && 'data' in value && !('statusCode' in value);

/**
 * The one middleware every API route shares:
 * - before: authenticates the two headers, before anything about the request is checked, then
 *   takes the credential's permit under its rate limit (429 with Retry-After over it);
 * - after: wraps the route's `{message, data}` in the `{result}` envelope;
 * - onError: turns any error into the `{error}` envelope with its HTTP status. Unexpected errors
 *   become INTERNAL with the request id and are logged; internals never leave.
 */
export const callableApi = ({
  authenticator,
  rateLimiter,
}: {
  authenticator: Authenticator;
  rateLimiter?: RateLimiter | undefined;
}): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | CallableResult, Error, ApiContext> => ({
  before: async (request: ApiRequest) => {
    const headers = request.event.headers ?? {};
    const credential = await beforeDeadline(
      request.context,
      authenticator.authenticate(headers['x-service-api-key'], headers['x-service-auth-token']),
    );
    request.context.credential = credential;
    logger.appendKeys({ apiKey: credential.apiKey });
    const admission = rateLimiter ? await rateLimiter.admitCredential(credential) : { admitted: true as const };
    if (!admission.admitted) {
      countRateLimited();
      throw new ApiError(
        'RESOURCE_EXHAUSTED',
        `The credential's request rate is exceeded; retry after ${admission.retryAfterSeconds} s.`,
        { retryAfterSeconds: admission.retryAfterSeconds },
      );
    }
  },
  after: async (request: ApiRequest) => {
    const response = request.response;
    if (isCallableResult(response)) request.response = successAnswer(response.message, response.data);
  },
  onError: async (request: ApiRequest) => {
    const { error } = request;
    if (isApiError(error)) {
      request.response = errorAnswer(error.status, error.message, error.details);
      const retryAfter = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
      if (error.status === 'RESOURCE_EXHAUSTED' && typeof retryAfter === 'number') {
        request.response.headers = { ...request.response.headers, 'retry-after': String(retryAfter) };
      }
      // `reason`, not `message`: Powertools reserves `message` for the log line's own and drops it.
      if (error.httpStatus >= 500) logger.warn('Request failed', { status: error.status, reason: error.message });
      return;
    }
    const requestId = request.context.awsRequestId;
    if (isTransientDependencyError(error)) {
      logger.error('Dependency unavailable', { error });
      request.response = errorAnswer('UNAVAILABLE', 'A dependency is unavailable; the request is safe to retry.', {
        requestId,
      });
      return;
    }
    logger.error('Unexpected error', { error });
    request.response = errorAnswer('INTERNAL', INTERNAL_MESSAGE, { requestId });
  },
});

/**
 * A route's handler: the shared chain around its domain call. The route gives the request schema
 * and the success message; the domain call only computes `result.data`. The authenticator is
 * built from the function's environment unless one is given (tests).
 */
export const httpRoute = <S extends z.core.$ZodType<{ organizationId: string }>>(
  route: Pick<Route<S>, 'request' | 'message' | 'scope'>,
  handle: (input: RouteInput<z.infer<S>>) => Promise<unknown>,
  {
    authenticator = createAuthenticator(),
    rateLimiter = createRateLimiter(),
  }: { authenticator?: Authenticator; rateLimiter?: RateLimiter } = {},
): HttpHandler => {
  // Middy's default early timeout (5 ms before the deadline) leaves no time to send the 503:
  // the route keeps the same margin as the authentication step.
  const handler = observed<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | CallableResult, ApiContext>({
    timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
  })
    .use(httpHeaderNormalizer())
    .use(callableApi({ authenticator, rateLimiter }))
    .handler(async (event, context, { signal }): Promise<CallableResult> => {
      const credential = context.credential as Credential;
      // The route's scope before anything of the request: it needs nothing of the body.
      if (!hasScope(credential, route.scope)) throw scopeDenied(route.scope);
      const data = readRequest(route.request, event);
      if (!grantsOrganization(credential, data.organizationId)) throw permissionDenied(data.organizationId);
      const input = {
        data,
        credential,
        signal: routeSignal(context, signal),
        domainName: event.requestContext?.domainName,
      };
      return { message: route.message, data: await handle(input) };
    });
  return handler as unknown as HttpHandler;
};
