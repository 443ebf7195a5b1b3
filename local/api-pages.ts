import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '#service/repository-root.js';

export interface StaticPage {
  method: 'GET';
  path: string;
  contentType: string;
  body: string;
}

/**
 * `GET /openapi.json` (docs/openapi.json), `GET /docs` (docs/openapi.html, its readable page) and
 * `GET /` (a small JSON that points to both, so that opening the twin's address in a browser
 * leads somewhere). Both files are generated at build time (`npm run generate`, checked by a
 * test), so the twin only reads them; the deployed API has none of these pages.
 */
/** Where they are served. */
export const API_PAGE_PATHS = ['/', '/openapi.json', '/docs'] as const;

export const apiPages = async (): Promise<StaticPage[]> => {
  const read = (file: string) => readFile(join(REPO_ROOT, 'docs', file), 'utf8');
  const [openapi, docsPage] = await Promise.all([read('openapi.json'), read('openapi.html')]);
  const doc = JSON.parse(openapi) as {
    info: { title: string; version: string };
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const index = {
    service: doc.info.title,
    version: doc.info.version,
    docs: '/docs',
    openapi: '/openapi.json',
    operations: Object.fromEntries(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => [operation.operationId, `${method.toUpperCase()} ${path}`]),
      ),
    ),
  };
  return [
    {
      method: 'GET',
      path: API_PAGE_PATHS[0],
      contentType: 'application/json',
      body: `${JSON.stringify(index, null, 2)}\n`,
    },
    { method: 'GET', path: API_PAGE_PATHS[1], contentType: 'application/json', body: openapi },
    { method: 'GET', path: API_PAGE_PATHS[2], contentType: 'text/html; charset=utf-8', body: docsPage },
  ];
};
