import { describe, expect, test } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, type OpenApiDocument } from '#tools/openapi/document.js';

// Independent of zod: the document is checked against the official OpenAPI 3.1 schema, and
// its examples against the JSON Schemas it publishes (what a client's tooling would use).
const doc = buildOpenApiDocument();

test('is a valid OpenAPI 3.1 document', async () => {
  const result = await new Validator().validate(structuredClone(doc));
  expect(result).toEqual({ valid: true });
});

describe('the published JSON Schemas', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (instance: Ajv2020) => void)(ajv);
  // The component refs are JSON pointers into the document, so the document is the schema root.
  ajv.addSchema(
    { $id: 'https://openapi.local/document.json', components: doc.components },
    'https://openapi.local/document.json',
  );
  const validate = (ref: string, value: unknown) => {
    const check = ajv.compile({ $ref: `https://openapi.local/document.json${ref}` });
    return check(value) ? [] : (check.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  };

  const cases = Object.entries(doc.paths as Record<string, OpenApiDocument>).flatMap(([path, { post }]) => [
    ...Object.entries(post.requestBody.content['application/json'].examples).map(
      ([name, example]) =>
        [
          `${path} request ${name}`,
          post.requestBody.content['application/json'].schema.$ref,
          (example as OpenApiDocument).value,
        ] as const,
    ),
    ...Object.entries(post.responses as Record<string, OpenApiDocument>).flatMap(([code, response]) =>
      Object.entries(response.content['application/json'].examples ?? {}).map(
        ([name, example]) =>
          [
            `${path} ${code} ${name}`,
            response.content['application/json'].schema.$ref,
            (example as OpenApiDocument).value,
          ] as const,
      ),
    ),
  ]);

  test.each(cases)('accept the example %s', (_name, ref, value) => {
    expect(validate(ref, value)).toEqual([]);
  });

  const valid = { organizationId: 'acme', userIds: ['alice'], config: { inbox: 'ALL' } };
  test.each([
    ['a control character in an identifier', { ...valid, organizationId: 'a\u0007b' }, '/organizationId'],
    ['an identifier of 257 characters', { ...valid, userIds: ['x'.repeat(257)] }, '/userIds/0'],
    ['1001 user ids', { ...valid, userIds: Array.from({ length: 1001 }, (_, i) => `u${i}`) }, '/userIds'],
    ['an empty documentIds', { ...valid, documentIds: [] }, '/documentIds'],
    ['an empty config', { ...valid, config: {} }, '/config'],
    ['an unknown channel', { ...valid, config: { sms: 'ALL' } }, '/config'],
    ['an unknown key', { ...valid, extra: 1 }, ''],
  ])('refuse %s, as the handlers do', (_name, data, where) => {
    expect(validate('#/components/schemas/SetConfigRequest', data).join('\n')).toContain(`${where} `);
  });

  test('accept identifiers with any other character', () => {
    expect(validate('#/components/schemas/SetConfigRequest', { ...valid, organizationId: 'a#/: é😀\u00a0' })).toEqual(
      [],
    );
  });
});
