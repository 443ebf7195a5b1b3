// Generated from shared/api/errors.ts by `npm run generate`: do not edit.

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
