import type * as z from 'zod/mini';
import { readRequest } from '../request-body.js';
import type { ApiMiddleware, ApiRequest } from './types.js';

/**
 * Reads and checks the request (method, content type, encoding, size, UTF-8, JSON, envelope, the
 * route's schema: request-body.ts) and puts the route's typed `data` on the context.
 */
export const readBody = (schema: z.core.$ZodType): ApiMiddleware => ({
  before: (request: ApiRequest) => {
    request.context.data = readRequest(schema, request.event);
  },
});
