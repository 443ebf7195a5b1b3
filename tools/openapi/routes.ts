import { buildOpenApiDocument } from '#tools/openapi/document.js';
import { renderDocsPage } from './docs-page.js';

export interface StaticRoute {
  method: 'GET';
  path: string;
  contentType: string;
  body: string;
}

/**
 * `GET /openapi.json` (the document, as committed in docs/openapi.json), `GET /docs` (a
 * readable rendering of it) and `GET /` (a small JSON that points to both, so that opening the
 * twin's address in a browser leads somewhere) for the local server. Built once per call, from
 * the zod schemas.
 */
export const openApiRoutes = (): StaticRoute[] => {
  const doc = buildOpenApiDocument();
  const index = {
    service: doc.info.title,
    version: doc.info.version,
    docs: '/docs',
    openapi: '/openapi.json',
    operations: Object.fromEntries(
      Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => [operation.operationId, `${method.toUpperCase()} ${path}`]),
      ),
    ),
  };
  return [
    { method: 'GET', path: '/', contentType: 'application/json', body: `${JSON.stringify(index, null, 2)}\n` },
    {
      method: 'GET',
      path: '/openapi.json',
      contentType: 'application/json',
      body: `${JSON.stringify(doc, null, 2)}\n`,
    },
    { method: 'GET', path: '/docs', contentType: 'text/html; charset=utf-8', body: renderDocsPage(doc) },
  ];
};
