import type { z } from 'zod';
import type { GetConfigResult, MigrateResult, MigrationStatusResult, SetConfigResult } from '#shared/api/responses.js';
import { ROUTES, type RouteId } from '#shared/deployment/functions.js';
import type { migrateRequest, migrationStatusRequest } from '#shared/migration/schemas.js';
import type { getConfigRequest, setConfigRequest } from '#shared/preferences/schemas.js';
import { isErrorStatus, ServiceError, statusForHttp, TransportError } from './errors.js';

// Types only: the client runs on `fetch` alone (a test bundles it and checks that zod is absent).
export type SetConfigInput = z.input<typeof setConfigRequest>;
export type GetConfigInput = z.input<typeof getConfigRequest>;
export type MigrateInput = z.input<typeof migrateRequest>;
export type MigrationStatusInput = z.input<typeof migrationStatusRequest>;
export type { GetConfigResult, MigrateResult, MigrationStatusResult, SetConfigResult };

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

export interface ServiceClient {
  setConfig(data: SetConfigInput, options?: CallOptions): Promise<SetConfigResult>;
  getConfig(data: GetConfigInput, options?: CallOptions): Promise<GetConfigResult>;
  migrateDocument(data: MigrateInput, options?: CallOptions): Promise<MigrateResult>;
  getMigrationStatus(data: MigrationStatusInput, options?: CallOptions): Promise<MigrationStatusResult>;
}

const pathOf = (id: RouteId): string => {
  const route = ROUTES.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`Unknown route ${id}`);
  return route.path;
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
 * A typed client for the four operations. Answers come back as their `result.data`; every
 * refusal is a ServiceError, every failure to get an answer a TransportError.
 */
export const createClient = ({ baseUrl, apiKey, token, fetch: fetchImpl, timeoutMs }: ClientOptions): ServiceClient => {
  const base = baseUrl.replace(/\/+$/, '');
  const doFetch = fetchImpl ?? globalThis.fetch;

  const call = async <T>(id: RouteId, data: unknown, options: CallOptions = {}): Promise<T> => {
    const url = `${base}${pathOf(id)}`;
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
    return readAnswer(httpStatus, text, url) as T;
  };

  return {
    setConfig: (data, options) => call<SetConfigResult>('ConfigSet', data, options),
    getConfig: (data, options) => call<GetConfigResult>('ConfigGet', data, options),
    migrateDocument: (data, options) => call<MigrateResult>('Migrate', data, options),
    getMigrationStatus: (data, options) => call<MigrationStatusResult>('MigrateStatus', data, options),
  };
};
