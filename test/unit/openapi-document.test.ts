import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { ERROR_HTTP_STATUS, ERROR_STATUSES } from '#shared/api/errors.js';
import { identifier, MAX_DOCUMENT_IDS, MAX_IDENTIFIER_LENGTH, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { parseCallableBody } from '#shared/edge/http-route.js';
import { buildOpenApiDocument, IDENTIFIER_PATTERN, type OpenApiDocument } from '#tools/openapi/document.js';
import { absolutePath, GENERATED_FILES } from '#tools/openapi/generated-files.js';
import { OPERATIONS } from '#tools/openapi/operations.js';
import { validateAgainstOpenApi } from '#tools/openapi/validate.js';

const doc = buildOpenApiDocument();
const schemas = doc.components.schemas as Record<string, OpenApiDocument>;
const postOf = (path: string) => doc.paths[path].post as OpenApiDocument;

const resolve = (reference: string): OpenApiDocument => {
  const [, ...segments] = reference.split('/');
  return segments.reduce((node, segment) => node?.[segment], doc);
};

const refsIn = (node: unknown): string[] => {
  if (Array.isArray(node)) return node.flatMap(refsIn);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [value] : refsIn(value),
  );
};

describe('the committed document', () => {
  test('equals the document generated from the schemas (run `npm run generate` after changing them)', () => {
    const file = GENERATED_FILES.find((candidate) => candidate.path === 'docs/openapi.json');
    if (!file) throw new Error('docs/openapi.json is not generated');
    const committed = JSON.parse(readFileSync(absolutePath(file), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  test('is OpenAPI 3.1 and every $ref points at something that exists', () => {
    expect(doc.openapi).toBe('3.1.0');
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const reference of refs)
      expect({ reference, target: resolve(reference) !== undefined }).toEqual({ reference, target: true });
  });
});

describe('operations', () => {
  test('documents every route of the stack and local server, POST only', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(OPERATIONS.map((operation) => operation.path).sort());
    for (const item of Object.values(doc.paths as Record<string, object>)) expect(Object.keys(item)).toEqual(['post']);
    const operationIds = Object.values(doc.paths).map((item) => (item as OpenApiDocument).post.operationId);
    expect(operationIds).toEqual([
      'setConfig',
      'getConfig',
      'setSchedule',
      'getSchedule',
      'resolveConfig',
      'resetConfig',
      'getConfigHistory',
      'setPolicy',
      'getPolicy',
      'setBranding',
      'getBranding',
      'migrateDocument',
      'getMigrationStatus',
      'eraseUser',
      'getErasureStatus',
      'exportUser',
      'createExport',
      'getExportStatus',
      'createImport',
      'getImportStatus',
      'createLinks',
      'revokeLinks',
      'setWebhooks',
      'getWebhooks',
      'rotateWebhookSecret',
      'getWebhookDeliveries',
    ]);
  });

  test('route-specific errors: 409 only on migrate, 404 only on status', () => {
    const codes = (path: string) => Object.keys(postOf(path).responses);
    expect(codes('/v2/organizations/documents/migrate')).toContain('409');
    expect(codes('/v2/organizations/documents/migrate/status')).toContain('404');
    for (const path of ['/v2/notifications/config/set', '/v2/notifications/config/get']) {
      expect(codes(path)).not.toContain('409');
      expect(codes(path)).not.toContain('404');
    }
    expect(schemas.MigrateRequest?.description).toContain('must differ');
  });

  test('both auth headers are required together, on every operation', () => {
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-service-api-key' }),
      AuthToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-service-auth-token' }),
    });
    // One requirement object holding both schemes means "both", two objects would mean "either".
    expect(doc.security).toEqual([{ ApiKey: [], AuthToken: [] }]);
    for (const operation of OPERATIONS) expect(postOf(operation.path).security).toBeUndefined();
  });

  test.each(OPERATIONS.map((operation) => [operation.operationId, operation] as const))(
    '%s: request body is {data: <handler schema>} and every error code maps to its statuses',
    (_name, operation) => {
      const post = postOf(operation.path);
      const body = resolve(post.requestBody.content['application/json'].schema.$ref);
      expect(body).toEqual({
        type: 'object',
        properties: { data: { $ref: `#/components/schemas/${operation.name}Request` } },
        required: ['data'],
        additionalProperties: false,
      });

      const expectedCodes = [...new Set(operation.errors.map((error) => ERROR_HTTP_STATUS[error.status]))];
      expect(Object.keys(post.responses).sort()).toEqual(['200', ...expectedCodes.map(String)].sort());
      for (const code of expectedCodes) {
        const schema = resolve(post.responses[code].content['application/json'].schema.$ref);
        const envelope = schema.anyOf ? schema.anyOf[0] : schema;
        const statuses = envelope.properties.error.properties.status.enum;
        expect(statuses.length).toBeGreaterThan(0);
        for (const status of statuses) expect(ERROR_HTTP_STATUS[status as keyof typeof ERROR_HTTP_STATUS]).toBe(code);
        expect(post.responses[code].description).toContain(statuses[0]);
      }
    },
  );

  test('the error catalogue and the unknown-route answer are described', () => {
    expect(schemas.ErrorStatus?.enum).toEqual(ERROR_STATUSES);
    for (const status of ERROR_STATUSES)
      expect(doc.info.description).toContain(`| ${status} | ${ERROR_HTTP_STATUS[status]} |`);
    const unknown = doc.components.responses.UnknownRoute;
    expect(resolve(unknown.content['application/json'].schema.$ref).properties.error.properties.status.enum).toEqual([
      'NOT_FOUND',
    ]);
    expect(unknown.description).toContain('$default');
  });
});

describe('limits', () => {
  test('appear in the schemas and in the descriptions', () => {
    const set = schemas.SetConfigRequest as OpenApiDocument;
    expect(set.properties.userIds).toMatchObject({ minItems: 1, maxItems: MAX_USER_IDS });
    expect(set.properties.documentIds).toMatchObject({ minItems: 1, maxItems: MAX_DOCUMENT_IDS });
    expect(set.properties.organizationId).toMatchObject({ minLength: 1, maxLength: MAX_IDENTIFIER_LENGTH });
    expect(set.properties.config).toMatchObject({ minProperties: 1, additionalProperties: false });
    expect(postOf('/v2/notifications/config/set').description).toContain(`1 to ${MAX_USER_IDS}`);
    for (const operation of OPERATIONS) {
      expect(postOf(operation.path).description).toContain(`${MAX_IDENTIFIER_LENGTH} characters`);
      expect(postOf(operation.path).description).toContain('1 MiB');
    }
  });

  test('the identifier pattern refuses exactly the characters the handlers refuse', () => {
    const pattern = new RegExp(IDENTIFIER_PATTERN, 'u');
    const schema = identifier('x');
    for (let codePoint = 0; codePoint <= 0x3000; codePoint += 1) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const text = `a${String.fromCodePoint(codePoint)}b`;
      expect({ codePoint, pattern: pattern.test(text) }).toEqual({
        codePoint,
        pattern: schema.safeParse(text).success,
      });
    }
  });
});

describe('examples', () => {
  const requestExamples = OPERATIONS.flatMap((operation) =>
    Object.entries(postOf(operation.path).requestBody.content['application/json'].examples as object).map(
      ([name, example]) => [`${operation.operationId} ${name}`, operation, example.value] as const,
    ),
  );

  test.each(requestExamples)('request %s is accepted by the handler schema', (_name, operation, body) => {
    expect(() => parseCallableBody(operation.request, body)).not.toThrow();
  });

  const responseExamples = OPERATIONS.flatMap((operation) =>
    Object.entries(postOf(operation.path).responses as Record<string, OpenApiDocument>).flatMap(([code, response]) =>
      Object.entries(response.content['application/json'].examples ?? {}).map(
        ([name, example]) =>
          [
            `${operation.operationId} ${code} ${name}`,
            operation.path,
            Number(code),
            (example as OpenApiDocument).value,
          ] as const,
      ),
    ),
  );

  test.each(responseExamples)('response %s matches its schema', (_name, path, code, body) => {
    expect(validateAgainstOpenApi(path, code, body)).toMatchObject({ valid: true, errors: [] });
  });

  test('every operation shows examples of success, schema errors and authentication errors', () => {
    for (const operation of OPERATIONS) {
      const responses = postOf(operation.path).responses;
      for (const code of ['200', '400', '401']) {
        expect(Object.keys(responses[code].content['application/json'].examples ?? {}).length).toBeGreaterThan(0);
      }
    }
    expect(responseExamples.length).toBeGreaterThan(OPERATIONS.length * 3);
  });
});
