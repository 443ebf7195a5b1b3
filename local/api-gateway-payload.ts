import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { isHostName } from '#shared/links/urls.js';
import { LOCAL_ACCOUNT_ID } from './lambda-context.js';

/**
 * API Gateway's HTTP API payload 2.0, as the local twin (local/server.ts) speaks it: a request
 * becomes the event a function receives, the function's result becomes the HTTP response.
 */

const pad = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `22/Nov/2026:07:57:39 +0000`, the format of requestContext.time. */
const requestTime = (date: Date) =>
  `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
  `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;

/** API Gateway lower-cases header names and joins repeated headers with commas. */
const eventHeaders = (rawHeaders: string[]): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return headers;
};

export interface RequestFacts {
  method: string;
  url: string;
  rawHeaders: string[];
  sourceIp: string;
  httpVersion: string;
  body: Buffer | undefined;
  routeKey: string;
  /** The address the connection came to (host:port): the event's domain when the Host header names none. */
  localHost?: string;
  /** A `{proxy+}` route's parameter, decoded as API Gateway decodes it. */
  pathParameters?: Record<string, string>;
}

/** An API Gateway HTTP API payload 2.0 event, field for field as the Lambda integration sends it. */
export const toApiGatewayEvent = ({
  method,
  url,
  rawHeaders,
  sourceIp,
  httpVersion,
  body,
  routeKey,
  localHost = '127.0.0.1',
  pathParameters,
}: RequestFacts): APIGatewayProxyEventV2 => {
  const queryStart = url.indexOf('?');
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : url.slice(queryStart + 1);
  const headers = eventHeaders(rawHeaders);
  // JSON is text, passed as it is. Bytes that are not UTF-8 are passed base64-encoded, as API
  // Gateway passes bytes it does not take for text, never with characters replaced: the
  // function refuses them (two different ids must never become the same replaced text).
  const asText = !body?.length || isUtf8(body);
  // Payload 2.0 moves cookies out of the headers into their own list.
  const cookies = headers.cookie?.split(/;\s*/).filter(Boolean);
  delete headers.cookie;
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    query[key] = key in query ? `${query[key]},${value}` : value;
  }
  const now = new Date();
  // API Gateway's domainName is the API's own domain. The twin takes the Host header the client
  // used (links made locally then open from where it called), unless it names no plain host
  // (empty, a path, spaces): then the address the connection came to.
  const host = isHostName(headers.host) ? headers.host : localHost;
  let path = rawPath;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    // A malformed escape stays as sent, as API Gateway passes it.
  }
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies?.length ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters: query } : {}),
    ...(pathParameters ? { pathParameters } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method,
        path,
        protocol: `HTTP/${httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body?.length ? { body: body.toString(asText ? 'utf8' : 'base64') } : {}),
    isBase64Encoded: !asText,
  };
};

/**
 * The function's result as API Gateway reads it: a structured result as it is; anything else
 * (a string, an object without statusCode) is inferred as a 200 JSON body.
 */
export const toHttpResponse = (
  result: APIGatewayProxyResultV2,
): { statusCode: number; body: string | Buffer; headers: Record<string, string> } => {
  if (typeof result === 'object' && result !== null && 'statusCode' in result) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
    const raw = result.body ?? '';
    // A binary body (a page's logo) goes out as its bytes.
    const body = result.isBase64Encoded ? Buffer.from(raw, 'base64') : raw;
    return { statusCode: result.statusCode ?? 200, headers, body };
  }
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: typeof result === 'string' ? result : JSON.stringify(result),
  };
};
