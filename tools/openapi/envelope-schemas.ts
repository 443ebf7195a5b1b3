import { z } from 'zod';
import { ERROR_HTTP_STATUS, ERROR_STATUSES, type ErrorStatus } from '#shared/api/errors.js';

/** `{result:{status:'success', message, data}}` around a route's data (docs/api.md, Wire protocol). */
export const successEnvelope = <S extends z.core.$ZodType>(data: S) =>
  z.strictObject({
    result: z.strictObject({
      status: z.literal('success'),
      message: z.string().meta({ description: 'Human-readable outcome.' }),
      data,
    }),
  });

export const errorStatus = z.enum(ERROR_STATUSES as [ErrorStatus, ...ErrorStatus[]]);

/** `{error:{message, status, details?}}`, with `status` narrowed to the codes one HTTP status can carry. */
export const errorEnvelope = (statuses: readonly ErrorStatus[] = ERROR_STATUSES) =>
  z.strictObject({
    error: z.strictObject({
      message: z.string().meta({ description: 'Human-readable description; schema errors name the field path.' }),
      status: statuses.length === ERROR_STATUSES.length ? errorStatus : errorStatus.extract(statuses as ErrorStatus[]),
      details: z
        .unknown()
        .optional()
        .meta({
          description:
            'Present for some errors: INVALID_ARGUMENT schema errors list every issue as [{path, message}]; ' +
            'INTERNAL and UNAVAILABLE carry {requestId}; a partly failed config/set carries the per-user map.',
        }),
    }),
  });

/**
 * What API Gateway itself answers when it throttles (429) or when a function crashes or times
 * out (500, 503): its own `{message}` body, not the service's envelope.
 */
export const gatewayError = z.strictObject({ message: z.string() });

/** The statuses that share one HTTP code, in catalogue order. */
export const statusesForHttp = (httpStatus: number, among: readonly ErrorStatus[] = ERROR_STATUSES): ErrorStatus[] =>
  among.filter((status) => ERROR_HTTP_STATUS[status] === httpStatus);
