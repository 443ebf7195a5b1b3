import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Authenticator } from '#shared/auth/authenticator.js';
import { createAuthenticator, createRateLimiter } from '#shared/auth/create-authenticator.js';
import { type Credential, grantsOrganization, permissionDenied } from '#shared/auth/credential.js';
import type { RateLimiter } from '#shared/auth/rate-limit.js';
import type { Route } from '#shared/platform/route.js';
import { DEADLINE_MARGIN_MS, routeSignal } from './deadlines.js';
import { apiEnvelope } from './middlewares/api-envelope.js';
import { apiErrors } from './middlewares/api-errors.js';
import { authenticate } from './middlewares/authenticate.js';
import { credentialLogKeys } from './middlewares/log-keys.js';
import { rateLimit } from './middlewares/rate-limit.js';
import { readBody } from './middlewares/read-body.js';
import { requireScope } from './middlewares/require-scope.js';
import { responseHeaders } from './middlewares/response-headers.js';
import type { ApiContext, CallableResult, HttpAnswer } from './middlewares/types.js';
import { observed } from './observed.js';

/**
 * The HTTP edge of every API route (docs/api.md, Wire protocol and Authentication; docs/development.md,
 * The edge): a chain of small middlewares, one concern each, in the order they run:
 * the API's response headers on every answer, header names normalized, errors mapped to the
 * `{error}` envelope (error-kinds.ts), the `{result}` envelope, authentication (first: an
 * unauthenticated caller learns nothing of the body rules), the credential's log keys, its rate
 * limit, the route's scope, the body read and checked; then the organization grant and the route's
 * domain call.
 */

export { DEADLINE_MARGIN_MS, ROUTE_STOP_MS } from './deadlines.js';
export type { ApiContext } from './middlewares/types.js';
export { formatPath, parseCallableBody } from './schema-issues.js';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: ApiContext) => Promise<HttpAnswer>;

export interface RouteInput<T> {
  data: T;
  credential: Credential;
  /** Aborted ROUTE_STOP_MS before the route's deadline: stop issuing writes then, and answer what was done. */
  signal: AbortSignal;
  /** Where the request came to (links/create builds its links on the API's own address). */
  domainName: string | undefined;
}

/** Sent with every API answer: it is never cached (links/create answers capability URLs), never sniffed. */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/**
 * A route's handler: the shared chain around its domain call. The route gives the request schema,
 * its scope and the success message; the domain call only computes `result.data`. The
 * authenticator is built from the function's environment unless one is given (tests).
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
  const handler = observed<APIGatewayProxyEventV2, HttpAnswer | CallableResult, ApiContext>({
    timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
  })
    .use(responseHeaders(API_HEADERS))
    .use(httpHeaderNormalizer())
    .use(apiErrors())
    .use(apiEnvelope())
    .use(authenticate(authenticator))
    .use(credentialLogKeys())
    .use(rateLimit(rateLimiter))
    .use(requireScope(route.scope))
    .use(readBody(route.request))
    .handler(async (event, context, { signal }): Promise<CallableResult> => {
      const credential = context.credential as Credential;
      const data = context.data as z.infer<S>;
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
