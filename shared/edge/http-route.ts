import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Authenticator } from '#shared/auth/authenticator.js';
import { createAuthenticator, createRateLimiter } from '#shared/auth/create-authenticator.js';
import type { Credential } from '#shared/auth/credential.js';
import type { RateLimiter } from '#shared/auth/rate-limit.js';
import type { IdempotencyStore } from '#shared/jobs/idempotency.js';
import type { Route } from '#shared/platform/route.js';
import { DEADLINE_MARGIN_MS, routeSignal } from './deadlines.js';
import { apiEnvelope } from './middlewares/api-envelope.js';
import { apiErrors } from './middlewares/api-errors.js';
import { authenticate } from './middlewares/authenticate.js';
import { idempotency } from './middlewares/idempotency.js';
import { credentialLogKeys } from './middlewares/log-keys.js';
import { rateLimit } from './middlewares/rate-limit.js';
import { readBody } from './middlewares/read-body.js';
import { requireOrganization } from './middlewares/require-organization.js';
import { requireScope } from './middlewares/require-scope.js';
import type { ApiContext, CallableResult, HttpAnswer } from './middlewares/types.js';
import { observed } from './observed.js';

/**
 * The HTTP edge of every API route (docs/api.md, Wire protocol and Authentication; docs/development.md,
 * The edge): a chain of small middlewares, one concern each, in the order they run:
 * header names normalized, errors mapped to the `{error}` envelope (error-kinds.ts), the `{result}`
 * envelope (both with the API's headers: shared/api/envelope.ts), authentication (first: an
 * unauthenticated caller learns nothing of the body rules), the credential's log keys, its rate
 * limit, the route's scope, the body read and checked, the organization grant, the
 * `Idempotency-Key` of a route that takes one; then the route's domain call.
 */

export { formatPath, parseCallableBody } from '#shared/api/schema-issues.js';
export { DEADLINE_MARGIN_MS, ROUTE_STOP_MS } from './deadlines.js';
export type { ApiContext } from './middlewares/types.js';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: ApiContext) => Promise<HttpAnswer>;

export interface RouteInput<T> {
  data: T;
  credential: Credential;
  /** Aborted ROUTE_STOP_MS before the route's deadline: stop issuing writes then, and answer what was done. */
  signal: AbortSignal;
  /** Where the request came to (links/create builds its links on the API's own address). */
  domainName: string | undefined;
}

export interface HttpRouteOptions {
  authenticator?: Authenticator;
  rateLimiter?: RateLimiter;
  /** Where the keys of a route that takes an `Idempotency-Key` are kept (required for such a route). */
  idempotency?: IdempotencyStore;
}

/**
 * A route's handler: the shared chain around its domain call. The route gives the request schema,
 * its scope and the success message; the domain call only computes `result.data`. The
 * authenticator is built from the function's environment unless one is given (tests).
 */
export const httpRoute = <S extends z.core.$ZodType<{ organizationId: string }>>(
  route: Pick<Route<S>, 'operationId' | 'request' | 'message' | 'scope' | 'idempotencyKey'>,
  handle: (input: RouteInput<z.infer<S>>) => Promise<unknown>,
  {
    authenticator = createAuthenticator(),
    rateLimiter = createRateLimiter(),
    idempotency: keys,
  }: HttpRouteOptions = {},
): HttpHandler => {
  if (route.idempotencyKey && !keys) throw new Error(`${route.operationId} takes an Idempotency-Key: give it a store`);
  // Middy's default early timeout (5 ms before the deadline) leaves no time to send the 503:
  // the route keeps the same margin as the authentication step.
  const handler = observed<APIGatewayProxyEventV2, HttpAnswer | CallableResult, ApiContext>({
    timeoutEarlyInMillis: DEADLINE_MARGIN_MS,
  })
    .use(httpHeaderNormalizer())
    .use(apiErrors())
    .use(apiEnvelope())
    .use(authenticate(authenticator))
    .use(credentialLogKeys())
    .use(rateLimit(rateLimiter))
    .use(requireScope(route.scope))
    .use(readBody(route.request))
    .use(requireOrganization());
  if (route.idempotencyKey && keys) handler.use(idempotency(keys, route.operationId));
  handler.handler(async (event, context, { signal }): Promise<CallableResult> => {
    if (context.answered) return context.answered;
    const input = {
      data: context.data as z.infer<S>,
      credential: context.credential as Credential,
      signal: routeSignal(context, signal),
      domainName: event.requestContext?.domainName,
    };
    return { message: route.message, data: await handle(input) };
  });
  return handler as unknown as HttpHandler;
};
