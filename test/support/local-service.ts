import { request as httpRequest } from 'node:http';
import type { QueueConsumer } from '#local/queue/queue.js';
import { type LocalRuntime, type LocalRuntimeOptions, startLocalRuntime } from '#local/runtime.js';

export interface CallOptions {
  /** Replaces the default headers (content type and the local credential) one by one; undefined removes one. */
  headers?: Record<string, string | undefined>;
  method?: string;
  /** Sent as it is instead of `{data}`. */
  rawBody?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  contentType: string | null;
  /** The parsed JSON body (undefined when it is not JSON). */
  body: {
    result?: { status: string; message: string; data: unknown };
    error?: { status: string; message: string; details?: unknown };
    [key: string]: unknown;
  };
  text: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request sent exactly as given (fetch adds a content type to string bodies and
 * refuses some headers), for the cases that depend on what is on the wire.
 */
export const rawRequest = (
  url: string,
  { method = 'POST', headers = [], body }: { method?: string; headers?: [string, string][]; body?: string | Buffer },
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    // A raw header list gets neither Host nor a length from Node: both are added here (Host unless given).
    const givesHost = headers.some(([name]) => name.toLowerCase() === 'host');
    const added: [string, string][] = givesHost ? [] : [['host', new URL(url).host]];
    if (body !== undefined) added.push(['content-length', String(Buffer.byteLength(body))]);
    const request = httpRequest(url, { method, headers: [...added, ...headers].flat() }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString(),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });

export interface LocalService extends LocalRuntime {
  /** POSTs `{data}` to `path` with the local credential; options change any part of the request. */
  call(path: string, data?: unknown, options?: CallOptions): Promise<CallResult>;
  authHeaders(apiKey?: string, token?: string): Record<string, string>;
}

export interface LocalServiceOptions extends Pick<LocalRuntimeOptions, 'changePublisher' | 'shellEnvFile'> {
  /** Default true. Without it, `dataDir` is required (a temporary directory, never the repository's). */
  inMemory?: boolean;
  dataDir?: string;
  /** Default 0: a free port. */
  port?: number;
  consumer?: QueueConsumer;
  queue?: LocalRuntimeOptions['queue'];
  apiKey?: string;
  token?: string;
  /** Told every AWS call a function makes (local/call-recorder.ts). */
  recordAwsCalls?: LocalRuntimeOptions['recordAwsCalls'];
  /** Extra environment for the functions. Defaults: logs silenced, no credential cache. */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

/**
 * The local server, in process, on a free port: what `npm start` runs, for end-to-end tests.
 * The handler modules read their environment once per module registry, so use one service
 * per test file (Jest gives each file its own registry); closing and starting again in the
 * same file reuses the same ports and works.
 */
export const startLocalService = async ({
  inMemory = true,
  dataDir,
  port = 0,
  env = {},
  log = () => {},
  ...options
}: LocalServiceOptions = {}): Promise<LocalService> => {
  if (!inMemory && !dataDir) throw new Error('startLocalService: a persistent service needs a dataDir');
  const runtime = await startLocalRuntime({
    host: '127.0.0.1',
    port,
    inMemory,
    ...(dataDir ? { dataDir } : {}),
    log,
    ...options,
    // Revocations take effect at once, and the handlers' logs stay out of the test output.
    env: { CREDENTIAL_CACHE_TTL_SECONDS: '0', POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
  });
  const authHeaders = (apiKey = runtime.apiKey, token = runtime.token) => ({
    'x-service-api-key': apiKey,
    'x-service-auth-token': token,
  });
  const call = async (path: string, data?: unknown, { headers = {}, method = 'POST', rawBody }: CallOptions = {}) => {
    const merged: Record<string, string | undefined> = {
      'content-type': 'application/json',
      ...authHeaders(),
      ...headers,
    };
    const sent = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >;
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const response = await fetch(`${runtime.baseUrl}${path}`, {
      method,
      headers: sent,
      ...(hasBody ? { body: rawBody ?? JSON.stringify({ data }) } : {}),
    });
    const text = await response.text();
    let body: CallResult['body'];
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined as unknown as CallResult['body'];
    }
    return {
      status: response.status,
      headers: response.headers,
      contentType: response.headers.get('content-type'),
      body,
      text,
    };
  };
  return Object.assign(runtime, { call, authHeaders });
};
