import { buildOpenApiDocument } from '#shared/api/openapi.js';
import { renderDocsPage } from './docs-page.js';

export interface StaticRoute {
  method: 'GET';
  path: string;
  contentType: string;
  body: string;
}

/**
 * `GET /openapi.json` (the document, as committed in docs/openapi.json) and `GET /docs` (a
 * readable rendering of it) for the local server. Built once per call, from the zod schemas.
 */
export const openApiRoutes = (): StaticRoute[] => {
  const doc = buildOpenApiDocument();
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      contentType: 'application/json',
      body: `${JSON.stringify(doc, null, 2)}\n`,
    },
    { method: 'GET', path: '/docs', contentType: 'text/html; charset=utf-8', body: renderDocsPage(doc) },
  ];
};
