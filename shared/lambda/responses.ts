import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ERROR_HTTP_STATUS, type ErrorStatus } from '#shared/api/errors.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

export interface SuccessBody<T = unknown> {
  result: { status: 'success'; message: string; data: T };
}

export interface ErrorBody {
  error: { message: string; status: ErrorStatus; details?: unknown };
}

export const successResponse = <T>(message: string, data: T): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 200,
  headers: { ...JSON_HEADERS },
  body: JSON.stringify({ result: { status: 'success', message, data } } satisfies SuccessBody<T>),
});

export const errorResponse = (
  status: ErrorStatus,
  message: string,
  details?: unknown,
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: ERROR_HTTP_STATUS[status],
  headers: { ...JSON_HEADERS },
  body: JSON.stringify({
    error: { message, status, ...(details === undefined ? {} : { details }) },
  } satisfies ErrorBody),
});
