import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { errorAnswer, INTERNAL_MESSAGE, internalErrorBody } from '#shared/api/envelope.js';
import { publicRoutePaths } from '#shared/platform/route.js';
import { toApiGatewayEvent, toHttpResponse } from './api-gateway-payload.js';
import { InFlight } from './in-flight.js';
import { lambdaContext } from './lambda-context.js';
import { closeServer, hostPort, listen } from './listen.js';
import { isOwnHost, refuseForeignHost } from './request-guard.js';

/**
 * The local twin of API Gateway's HTTP API in front of the Lambda functions: each request
 * becomes a payload 2.0 event, the function's result becomes the HTTP response (local/api-gateway-payload.ts).
 */

/** Lambda's synchronous invocation payload limit; the handlers enforce the API's own 1 MiB. */
export const MAX_REQUEST_BYTES = 6 * 1024 * 1024;

/**
 * How long a client has to send a request: its headers, then all of it. API Gateway gives up
 * on a request after about 30 s; without a limit a client trickling its headers or body holds a
 * connection (and a function waiting for the body) for ever. Past it the client gets 408.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** A stop waits for the requests under way this long past the longest function timeout. */
const DRAIN_MARGIN_MS = 1_000;

// biome-ignore lint/suspicious/noExplicitAny: a Lambda handler's context parameter varies by handler.
export type ApiHandler = (event: APIGatewayProxyEventV2, context: any) => Promise<APIGatewayProxyResultV2>;

export interface LocalFunction {
  /** Function name in the Lambda context and the logs. */
  name: string;
  handler: ApiHandler;
  /** The deployed function's timeout and memory (service/functions.ts): its context counts down from it. */
  timeoutMs: number;
  memoryMb: number;
}

/** A public route of the links in emails: every path under `prefix` and the prefix itself (`ANY /u/{proxy+}` and `ANY /u` on API Gateway). */
export interface PrefixRoute {
  prefix: string;
  fn: LocalFunction;
}

export interface ApiServerOptions {
  /** Exact path to its function, for any method (the routes are `ANY <path>`). */
  routes: Map<string, LocalFunction>;
  /** Paths under a prefix to its function, with the rest of the path as the `proxy` path parameter. */
  prefixRoutes?: readonly PrefixRoute[];
  /** The `$default` route: every other path. */
  fallback: LocalFunction;
  /** Replaces every function's own timeout (a test or a bench that must not be cut short). */
  timeoutOverrideMs?: number;
  /** Static pages served on GET (the API description); not part of the deployed API. */
  pages?: { path: string; contentType: string; body: string }[];
  /** Replace HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS (tests). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Counts each request until it is answered (local/in-flight.ts). */
  inFlight?: InFlight;
  /**
   * How long close() waits for the requests under way at most; by default the longest function
   * timeout and a second (the twin under `npm run dev` is killed 5 s after it is told to stop).
   */
  drainMs?: number;
  log?: (line: string) => void;
}

/** API Gateway's own errors (not the function's envelope) are `{"message": ...}`. */
const rawAnswer = (status: number, reason: string, message = reason): string => {
  const body = JSON.stringify({ message });
  return (
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
};

/** What a request the server could not read is answered: a timeout says so, the rest as Node would. */
const CLIENT_ERROR_ANSWERS: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: rawAnswer(408, 'Request Timeout'),
  HPE_HEADER_OVERFLOW: rawAnswer(431, 'Request Header Fields Too Large'),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: rawAnswer(413, 'Payload Too Large'),
};

class BodyTooLarge extends Error {}

/**
 * How a request's path appears in the log: a route by its key (`/v2/notifications/config/set`,
 * `/u/{proxy+}`), any other path by its first segment only. The links in emails carry a token in
 * their path, which must never reach a log line.
 */
export const loggedPath = (rawPath: string, route: string | undefined): string => {
  if (route) return route;
  const [, first = '', ...rest] = rawPath.split('/');
  return `/${first.length > 64 ? `${first.slice(0, 64)}…` : first}${rest.length > 0 ? '/…' : ''}`;
};

const decodedOrRaw = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Reads the whole body; past the limit it keeps draining (so the client can read the answer) but keeps nothing. */
const readBody = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_REQUEST_BYTES) throw new BodyTooLarge();
  return Buffer.concat(chunks);
};

export interface ApiServer {
  server: Server;
  /** Starts listening; resolves with the base URL. */
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

export const createApiServer = ({
  routes,
  prefixRoutes = [],
  fallback,
  timeoutOverrideMs,
  pages = [],
  headersTimeoutMs = HEADERS_TIMEOUT_MS,
  requestTimeoutMs = REQUEST_TIMEOUT_MS,
  inFlight,
  drainMs,
  log = () => {},
}: ApiServerOptions): ApiServer => {
  /** Connections whose answer has begun: a late client error must not write into it. */
  const answering = new WeakSet<Socket>();
  /** Connections whose request's body is being read, and those cut for not sending it in time. */
  const reading = new Set<Socket>();
  const timedOut = new WeakSet<Socket>();
  const pagesByPath = new Map(pages.map((page) => [page.path, page]));
  /** Every request until it is answered, whether or not the caller counts them too: a stop waits for them. */
  const underWay = inFlight ?? new InFlight();
  /** Every open connection, and those with a request being answered (their answer): a stop keeps only the latter. */
  const connections = new Set<Socket>();
  const serving = new Map<Socket, ServerResponse>();
  let stopping = false;
  /** The interface listened on: a request must name it, or loopback (local/request-guard.ts). */
  let boundHost = '127.0.0.1';
  const respond = async (request: IncomingMessage, response: ServerResponse): Promise<number> => {
    const started = Date.now();
    const url = request.url ?? '/';
    const rawPath = url.split('?')[0] ?? '/';
    const page = pagesByPath.get(rawPath);
    if (page && (request.method === 'GET' || request.method === 'HEAD')) {
      response.writeHead(200, { 'content-type': page.contentType, 'content-length': Buffer.byteLength(page.body) });
      response.end(request.method === 'HEAD' ? undefined : page.body);
      return 200;
    }
    const route = routes.get(rawPath);
    const underPrefix = route
      ? undefined
      : prefixRoutes.find(({ prefix }) => rawPath.startsWith(prefix) && rawPath.length > prefix.length);
    // The prefix itself: `ANY /u`, which API Gateway also matches for `/u/`.
    const atPrefix =
      route || underPrefix
        ? undefined
        : prefixRoutes.find(({ prefix }) => rawPath === prefix || `${rawPath}/` === prefix);
    const fn = route ?? underPrefix?.fn ?? atPrefix?.fn ?? fallback;
    const routePath = route
      ? rawPath
      : underPrefix
        ? publicRoutePaths(underPrefix.prefix)[0]
        : atPrefix
          ? publicRoutePaths(atPrefix.prefix)[1]
          : undefined;
    const shown = loggedPath(rawPath, routePath);
    let result: ReturnType<typeof toHttpResponse>;
    let requestId = '';
    let body: Buffer | undefined;
    try {
      reading.add(request.socket);
      body = await readBody(request);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) {
        // The client went away mid-request, or did not send it in time (answered 408 in
        // clientError, below): nobody is left to answer here.
        const why = timedOut.has(request.socket)
          ? `408 body not received within ${requestTimeoutMs} ms`
          : stopping
            ? 'cut: the server stopped before the body was sent'
            : 'aborted by the client';
        log(`${request.method} ${shown} ${why}`);
        return 0;
      }
    } finally {
      reading.delete(request.socket);
    }
    if (body === undefined) {
      // Over Lambda's invocation limit no function is invoked: API Gateway answers it itself,
      // outside the envelope, before any route or credential is looked at.
      result = {
        statusCode: 413,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Request Entity Too Large' }),
      };
    } else {
      try {
        const event = toApiGatewayEvent({
          method: request.method ?? 'GET',
          url,
          rawHeaders: request.rawHeaders,
          sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
          httpVersion: request.httpVersion,
          body,
          routeKey: routePath ? `ANY ${routePath}` : '$default',
          localHost: hostPort(
            (request.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
            request.socket.localPort ?? 0,
          ),
          ...(underPrefix ? { pathParameters: { proxy: decodedOrRaw(rawPath.slice(underPrefix.prefix.length)) } } : {}),
        });
        requestId = event.requestContext.requestId;
        const context = lambdaContext({
          functionName: fn.name,
          timeoutMs: timeoutOverrideMs ?? fn.timeoutMs,
          memoryLimitInMB: fn.memoryMb,
        });
        result = toHttpResponse(await fn.handler(event, context));
      } catch (error) {
        // A crash outside the handler's own error handling: never show internals.
        requestId ||= randomUUID();
        log(`local server error (request ${requestId}): ${error instanceof Error ? error.stack : String(error)}`);
        result = errorAnswer('INTERNAL', INTERNAL_MESSAGE, { requestId });
      }
    }
    if (!response.headersSent) {
      answering.add(request.socket);
      response.once('finish', () => answering.delete(request.socket));
      response.writeHead(result.statusCode, {
        ...result.headers,
        ...(requestId ? { 'apigw-requestid': requestId } : {}),
        'content-length': Buffer.byteLength(result.body),
      });
      response.end(result.body);
    }
    log(`${request.method} ${shown} ${result.statusCode} ${Date.now() - started}ms`);
    return result.statusCode;
  };

  // Node checks its timeouts every connectionsCheckingInterval (30 s by default): 1 s here.
  const server = createServer(
    { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: 1_000 },
    (request, response) => {
      const { socket } = request;
      if (!isOwnHost(request.headers.host, socket.localPort ?? 0, boundHost)) {
        log(`${request.method} refused: Host ${JSON.stringify(request.headers.host ?? '')} is not this server's`);
        return refuseForeignHost(response);
      }
      serving.set(socket, response);
      response.once('close', () => {
        serving.delete(socket);
        // An answer whose headers promised keep-alive before the stop: its connection goes now.
        if (stopping) server.closeIdleConnections();
      });
      underWay.track(respond(request, response)).catch((error) => {
        log(`local server error: ${error instanceof Error ? error.stack : String(error)}`);
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify(internalErrorBody(randomUUID())));
      });
    },
  );
  // Requests are short; keep-alive sockets must not hold up a shutdown.
  server.keepAliveTimeout = 5_000;
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  // A request that could not be read: answered (unless an answer has begun) and the connection closed.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      timedOut.add(socket);
      // A body's timeout is logged with its request's method and path (respond, above).
      if (!reading.has(socket)) log(`408 request headers not received within ${headersTimeoutMs} ms`);
    }
    if (socket.writable && !answering.has(socket) && error.code !== 'ECONNRESET') {
      socket.write(CLIENT_ERROR_ANSWERS[error.code ?? ''] ?? rawAnswer(400, 'Bad Request'));
    }
    socket.destroySoon();
  });

  return {
    server,
    listen: async (port, host) => {
      boundHost = host;
      return `http://${hostPort(host === '0.0.0.0' ? '127.0.0.1' : host, await listen(server, port, host))}`;
    },
    close: async () => {
      // As on AWS, a request whose function runs is answered before the twin stops what that
      // function uses (each stops by its own timeout). Not waited for: a connection with no
      // request yet (a browser's preconnect, headers half sent: Node counts it busy, and its
      // timeouts stop with the server) and a body still on its way.
      stopping = true;
      const longestTimeoutMs = Math.max(
        ...[fallback, ...routes.values(), ...prefixRoutes.map(({ fn }) => fn)].map(({ timeoutMs }) => timeoutMs),
      );
      const waitMs = drainMs ?? (timeoutOverrideMs ?? longestTimeoutMs) + DRAIN_MARGIN_MS;
      const closed = closeServer(server, waitMs);
      for (const socket of connections) if (!serving.has(socket) || reading.has(socket)) socket.destroy();
      // An answer not begun yet closes its connection once sent, instead of waiting for another request.
      for (const response of serving.values()) if (!response.headersSent) response.shouldKeepAlive = false;
      await Promise.all([closed, underWay.quiet(waitMs)]);
    },
  };
};
