/**
 * The error catalogue of the API: every status a client can see and its HTTP code
 * (Firebase callable protocol; docs/api.md, Errors). Nothing else defines these.
 */
export const ERROR_HTTP_STATUS = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorStatus = keyof typeof ERROR_HTTP_STATUS;

export const ERROR_STATUSES = Object.keys(ERROR_HTTP_STATUS) as ErrorStatus[];

/** An error meant for the caller: its message and details are safe to return as they are. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return ERROR_HTTP_STATUS[this.status];
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/** One message for every authentication failure, so that it is no oracle. */
export const UNAUTHENTICATED_MESSAGE = 'Missing or invalid API key or auth token.';
