import { isErrorStatus, ServiceError, statusForHttp, TransportError } from './errors.js';

const snippet = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const DELTA_SECONDS = /^\s*\d+\s*$/;

/**
 * How long a 429 asks the caller to wait, in ms: the envelope's `details.retryAfterSeconds` or
 * the `Retry-After` header (seconds, as the service sends it), the longer when both are there.
 * Undefined without either: API Gateway's own throttling sends neither.
 */
export const retryAfterMs = (httpStatus: number, details: unknown, header: string | null): number | undefined => {
  if (httpStatus !== 429) return undefined;
  const seconds: number[] = [];
  const fromBody = isObject(details) ? details.retryAfterSeconds : undefined;
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) seconds.push(fromBody);
  if (header !== null && DELTA_SECONDS.test(header)) seconds.push(Number(header));
  return seconds.length === 0 ? undefined : Math.ceil(Math.max(...seconds) * 1000);
};

export interface Answer {
  httpStatus: number;
  text: string;
  retryAfterHeader: string | null;
}

/** Turns an answer into its `result.data`, or throws the error it stands for. */
export const readAnswer = ({ httpStatus, text, retryAfterHeader }: Answer, url: string): unknown => {
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
    const wait = retryAfterMs(httpStatus, error.details, retryAfterHeader);
    throw new ServiceError(error.status, error.message, httpStatus, error.details, wait);
  }
  if (!ok) {
    // Not the service's envelope: API Gateway's own {message}, or a proxy's page.
    const message =
      isObject(body) && typeof body.message === 'string'
        ? body.message
        : `HTTP ${httpStatus} from ${url}${json ? '' : ` with a non-JSON body: ${snippet(text)}`}`;
    const wait = retryAfterMs(httpStatus, undefined, retryAfterHeader);
    throw new ServiceError(statusForHttp(httpStatus), message, httpStatus, undefined, wait);
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
