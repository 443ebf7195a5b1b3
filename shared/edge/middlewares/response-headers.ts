import type { MiddlewareObj, Request } from '@middy/core';

/**
 * Adds `headers` to every answer, the route's own and an error's alike: used first, its `after`
 * and `onError` run last. A header the answer already sets is kept (a page's own content type).
 */
export const responseHeaders = (headers: Readonly<Record<string, string>>): MiddlewareObj => {
  const add = (request: Request) => {
    const response = request.response as { headers?: Record<string, string | number | boolean> } | undefined;
    if (typeof response !== 'object' || response === null) return;
    response.headers = { ...headers, ...response.headers };
  };
  return { after: add, onError: add };
};
