import { fileURLToPath } from 'node:url';

/** The committed OpenAPI document, relative to the repository root. */
export const OPENAPI_FILE = 'docs/openapi.json';

export const openApiFilePath = (): string => fileURLToPath(new URL(`../../${OPENAPI_FILE}`, import.meta.url));
