import type { OperationId, OperationInput, OperationResult } from '#shared/api/operations.js';
import { isErrorStatus, ServiceError, statusForHttp, TransportError } from './errors.js';
import { OPERATION_PATHS } from './operations.js';

// Types only from the operations table: at run time the client needs nothing but `fetch` and
// the generated paths (a test bundles it and checks that zod is absent).
export type { OperationId, OperationInput, OperationResult };
export type SetConfigInput = OperationInput<'setConfig'>;
export type SetConfigResult = OperationResult<'setConfig'>;
export type GetConfigInput = OperationInput<'getConfig'>;
export type GetConfigResult = OperationResult<'getConfig'>;
export type MigrateInput = OperationInput<'migrateDocument'>;
export type MigrateResult = OperationResult<'migrateDocument'>;
export type MigrationStatusInput = OperationInput<'getMigrationStatus'>;
export type MigrationStatusResult = OperationResult<'getMigrationStatus'>;

export interface ClientOptions {
  /** Where the API lives, e.g. http://127.0.0.1:3000 or the stack's ApiUrl output. */
  baseUrl: string;
  apiKey: string;
  token: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Gives up on a call after this long (a TransportError of kind network). */
  timeoutMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** One method per operation, named by its operationId: `data` in, `result.data` out. */
export type ServiceClient = {
  [Id in OperationId]: (data: OperationInput<Id>, options?: CallOptions) => Promise<OperationResult<Id>>;
};

const snippet = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Turns an answer into its `result.data`, or throws the error it stands for. */
const readAnswer = (httpStatus: number, text: string, url: string): unknown => {
  let body: unknown;
  let json = true;
  try {
    body = JSON.parse(text);
  } catch {
    json = false;
  }
  const ok = httpStatus >= 200 && httpStatus < 300;
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (error && isErrorStatus(error.status) && typeof error.message === 'string') {
    throw new ServiceError(error.status, error.message, httpStatus, error.details);
  }
  if (!ok) {
    // Not the service's envelope: API Gateway's own {message}, or a proxy's page.
    const message =
      isObject(body) && typeof body.message === 'string'
        ? body.message
        : `HTTP ${httpStatus} from ${url}${json ? '' : ` with a non-JSON body: ${snippet(text)}`}`;
    throw new ServiceError(statusForHttp(httpStatus), message, httpStatus);
  }
  const result = isObject(body) && isObject(body.result) ? body.result : undefined;
  if (result?.status !== 'success' || !('data' in result)) {
    throw new TransportError(
      'invalid-response',
      json
        ? `HTTP ${httpStatus} from ${url} is not a {result} envelope: ${snippet(text)}`
        : `HTTP ${httpStatus} from ${url} is not JSON: ${snippet(text)}`,
      httpStatus,
    );
  }
  return result.data;
};

/**
 * A typed client with one method per operation of the API. Answers come back as their `result.data`; every
 * refusal is a ServiceError, every failure to get an answer a TransportError.
 */
export const createClient = ({ baseUrl, apiKey, token, fetch: fetchImpl, timeoutMs }: ClientOptions): ServiceClient => {
  const base = baseUrl.replace(/\/+$/, '');
  const doFetch = fetchImpl ?? globalThis.fetch;

  const call = async (path: string, data: unknown, options: CallOptions = {}): Promise<unknown> => {
    const url = `${base}${path}`;
    const signals = [options.signal, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    let httpStatus: number;
    let text: string;
    try {
      const response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-service-api-key': apiKey,
          'x-service-auth-token': token,
        },
        body: JSON.stringify({ data }),
        ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
      });
      httpStatus = response.status;
      text = await response.text();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TransportError('network', `POST ${url} failed: ${reason}`, undefined, { cause: error });
    }
    return readAnswer(httpStatus, text, url);
  };

  return Object.fromEntries(
    Object.entries(OPERATION_PATHS).map(([id, path]) => [
      id,
      (data: unknown, options?: CallOptions) => call(path, data, options),
    ]),
  ) as ServiceClient;
};
