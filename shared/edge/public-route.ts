import { isIP } from 'node:net';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type Locale, negotiateLocale } from '#shared/api/locales.js';
import { MAX_USER_AGENT_LENGTH } from '#shared/consent/consent.js';
import { PAGE_HEADERS } from '#shared/links/pages/layout.js';
import type { FixedPages, PageAnswer, PublicRequest } from '#shared/platform/public-page.js';
import type { PublicRoute } from '#shared/platform/route.js';
import { DEADLINE_MARGIN_MS, routeSignal } from './deadlines.js';
import { pageErrors } from './middlewares/page-errors.js';
import { responseHeaders } from './middlewares/response-headers.js';
import { observed } from './observed.js';

export type { FixedPages, PageAnswer, PublicRequest } from '#shared/platform/public-page.js';

/**
 * The edge of the public pages a link in an email opens (docs/api.md, Links in emails): no API
 * key, no JSON envelope, HTML answers. It shares the API routes' observability (observed.ts),
 * and the API's middlewares where they apply:
 * - responseHeaders: the security headers of every page on every answer, whatever it is;
 * - pageErrors: never a 5xx and never an internal: any failure answers the route's "try again"
 *   page with 429 and Retry-After (nothing was changed), logged at ERROR and counted
 *   (LinkPageFailures). The token is never logged: neither the event (the logger's context holds
 *   none of it) nor the path appears in a log line, and no error the routes raise carries it;
 * - then it answers only `<prefix><token>` with GET (HEAD alike, without a body) or POST: another
 *   path under the prefix, or none, is the route's 404 page, another method its 405 page.
 */

type Answer = APIGatewayProxyStructuredResultV2;

const answer = (statusCode: number, body: string, headers: Record<string, string> = {}): Answer => ({
  statusCode,
  headers,
  body,
});

const ALLOWED_METHODS = 'GET, HEAD, POST';

/** The token of `/u/<token>`: API Gateway's `{proxy+}` value, else the raw path after the prefix; one segment only. */
const tokenOf = (event: APIGatewayProxyEventV2, prefix: string): string | undefined => {
  const fromGateway = event.pathParameters?.proxy;
  const raw = event.rawPath ?? '';
  const at = raw.indexOf(prefix);
  const token = fromGateway ?? (at === -1 ? undefined : raw.slice(at + prefix.length));
  return token && !token.includes('/') ? token : undefined;
};

const bodyOf = (event: APIGatewayProxyEventV2): Buffer =>
  event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);

/** The language of the pages the edge answers itself: the browser's, as far as the service speaks it. */
const localeOf = (event: APIGatewayProxyEventV2): Locale =>
  negotiateLocale({ acceptLanguage: event.headers?.['accept-language'] });

/** The address API Gateway saw the request come from, and the user agent it sent (cut at the evidence's bound). */
const clientOf = (event: APIGatewayProxyEventV2) => {
  const ipAddress = event.requestContext?.http?.sourceIp;
  const userAgent = event.headers?.['user-agent'];
  return {
    ...(ipAddress && isIP(ipAddress) !== 0 ? { ipAddress } : {}),
    ...(userAgent ? { userAgent: userAgent.slice(0, MAX_USER_AGENT_LENGTH) } : {}),
  };
};

const queryOf = (event: APIGatewayProxyEventV2): Record<string, string> => {
  const query: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(event.rawQueryString ?? '')) {
    if (!(name in query)) query[name] = value;
  }
  return query;
};

/**
 * A public route's handler: the edge around the route's page call. `handle` is called only for a
 * path with a token and an allowed method; it answers a page (or a 303), and may throw. The
 * edge's own pages (`pagesIn`) are in the language the request's Accept-Language asks for.
 */
export const publicRoute = (
  route: Pick<PublicRoute, 'prefix' | 'methods'>,
  pagesIn: (locale: Locale) => FixedPages,
  handle: (request: PublicRequest) => Promise<PageAnswer>,
) =>
  observed<APIGatewayProxyEventV2, Answer>({ timeoutEarlyInMillis: DEADLINE_MARGIN_MS })
    .use(responseHeaders(PAGE_HEADERS))
    .use(httpHeaderNormalizer())
    .use(pageErrors((event) => pagesIn(localeOf(event as APIGatewayProxyEventV2)).tryAgain))
    .handler(async (event, context, { signal }): Promise<Answer> => {
      const pages = pagesIn(localeOf(event));
      const requested = (event.requestContext?.http?.method ?? 'GET').toUpperCase();
      const method = requested === 'HEAD' ? 'GET' : requested;
      if (method !== 'GET' && method !== 'POST') {
        return answer(405, pages.methodNotAllowed, { allow: ALLOWED_METHODS });
      }
      if (!(route.methods as readonly string[]).includes(method)) {
        return answer(405, pages.methodNotAllowed, { allow: ALLOWED_METHODS });
      }
      const token = tokenOf(event, route.prefix);
      const result: PageAnswer = token
        ? await handle({
            method,
            token,
            body: method === 'POST' ? bodyOf(event) : Buffer.alloc(0),
            contentType: event.headers?.['content-type'],
            acceptLanguage: event.headers?.['accept-language'],
            query: queryOf(event),
            signal: routeSignal(context, signal),
            client: clientOf(event),
          })
        : { status: 404, body: pages.notFound };
      const response =
        result.status === 303
          ? answer(303, '', { ...result.headers, location: result.location ?? '.' })
          : result.download
            ? answer(result.status, result.body, {
                ...result.headers,
                'content-type': 'application/json; charset=utf-8',
                'content-disposition': `attachment; filename="${result.download}"`,
              })
            : answer(result.status, result.body, { ...result.headers });
      if (result.base64) response.isBase64Encoded = true;
      if (requested === 'HEAD') response.body = '';
      return response;
    });
