import { ERROR_HTTP_STATUS, type ErrorStatus } from './errors.js';

/**
 * The response bodies of the wire protocol, built in this one place: the handlers, the local
 * API Gateway twin, the OpenAPI examples and the tests all use these builders.
 */

export interface SuccessBody<T = unknown> {
  result: { status: 'success'; message: string; data: T };
}

export interface ErrorBody {
  error: { message: string; status: ErrorStatus; details?: unknown };
}

/** The only text an unexpected failure shows: never internals, always a request id to quote. */
export const INTERNAL_MESSAGE = 'Internal error.';

export const successBody = <T>(message: string, data: T): SuccessBody<T> => ({
  result: { status: 'success', message, data },
});

export const errorBody = (status: ErrorStatus, message: string, details?: unknown): ErrorBody => ({
  error: { message, status, ...(details === undefined ? {} : { details }) },
});

export const internalErrorBody = (requestId: string): ErrorBody =>
  errorBody('INTERNAL', INTERNAL_MESSAGE, { requestId });

/** An HTTP answer (API Gateway's proxy result shape) with the JSON body and its status code. */
export interface JsonAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sent with every API answer: never cached (links/create answers capability URLs, every answer
 * is one caller's), never sniffed as anything but JSON.
 */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const answer = (statusCode: number, body: SuccessBody | ErrorBody): JsonAnswer => ({
  statusCode,
  headers: { ...API_HEADERS },
  body: JSON.stringify(body),
});

export const successAnswer = <T>(message: string, data: T): JsonAnswer => answer(200, successBody(message, data));

export const errorAnswer = (status: ErrorStatus, message: string, details?: unknown): JsonAnswer =>
  answer(ERROR_HTTP_STATUS[status], errorBody(status, message, details));
