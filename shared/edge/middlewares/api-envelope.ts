import { successAnswer } from '#shared/api/envelope.js';
import type { ApiMiddleware, ApiRequest, CallableResult } from './types.js';

const isCallableResult = (value: unknown): value is CallableResult =>
  typeof value === 'object' && value !== null && 'message' in value && 'data' in value && !('statusCode' in value);

/** Wraps the route's `{message, data}` in the `{result}` envelope (an HTTP answer passes as it is). */
export const apiEnvelope = (): ApiMiddleware => ({
  after: (request: ApiRequest) => {
    const { response } = request;
    if (isCallableResult(response)) request.response = successAnswer(response.message, response.data);
  },
});
