import { z } from 'zod';
import { deliverySetting } from '#shared/api/channels.js';
import { errorBody, internalErrorBody } from '#shared/api/envelope.js';
import { ApiError, ERROR_HTTP_STATUS, ERROR_STATUSES, UNAUTHENTICATED_MESSAGE } from '#shared/api/errors.js';
import { MAX_BODY_BYTES, MAX_DOCUMENT_IDS, MAX_IDENTIFIER_LENGTH, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { permissionDenied } from '#shared/auth/credential.js';
import { parseCallableBody } from '#shared/edge/http-route.js';
import { migrationState } from '#shared/migration/routes/get-migration-status.js';
import { migrateDocumentRoute } from '#shared/migration/routes/migrate-document.js';
import { userWriteResult } from '#shared/preferences/results.js';
import { configView } from '#shared/preferences/routes/get-config.js';
import { channelConfig } from '#shared/preferences/schemas.js';
import { responsesOf, unknownRouteResponse } from './documented-responses.js';
import { errorEnvelope, errorStatus, gatewayError } from './envelope-schemas.js';
import { describeFields, type FieldDocs } from './field-docs.js';
import { LINK_PAGES_DESCRIPTION } from './operation-docs/links.js';
import { OPERATIONS, type Operation } from './operations.js';

/**
 * Builds the OpenAPI 3.1 document from the operation table with zod's own JSON Schema output
 * (draft 2020-12, OpenAPI 3.1's dialect). Deterministic: the committed file is compared with it.
 */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is free-form JSON.
export type OpenApiDocument = Record<string, any>;
type JsonSchema = Record<string, unknown>;

export const API_KEY_HEADER = 'x-service-api-key';
export const AUTH_TOKEN_HEADER = 'x-service-auth-token';

/**
 * JSON Schema for the control characters identifiers refuse (Unicode Cc is exactly U+0000-U+001F
 * and U+007F-U+009F); zod's refinement cannot be exported, so the document states it as a pattern.
 */
export const IDENTIFIER_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';

const COMPONENT_PREFIX = '#/components/schemas/';

// Rules zod keeps in refinements, which JSON Schema cannot see. Strings capped at the identifier
// length are the identifier() schemas (no other string has that cap).
const describeRefinements = (ctx: { zodSchema: unknown; jsonSchema: JsonSchema }) => {
  const schema = ctx.jsonSchema;
  if (schema.type === 'string' && schema.maxLength === MAX_IDENTIFIER_LENGTH) schema.pattern = IDENTIFIER_PATTERN;
  if (ctx.zodSchema === channelConfig) {
    schema.minProperties = 1;
    schema.description = 'At least one of inbox, email, slack; a channel left out keeps its stored value.';
  }
  if (ctx.zodSchema === migrateDocumentRoute.request)
    schema.description = '`documentId` and `newDocumentId` must differ.';
};

const componentSchemas = (
  register: (registry: z.core.$ZodRegistry<{ id: string }>) => void,
  io: 'input' | 'output',
) => {
  const registry = z.registry<{ id: string }>();
  register(registry);
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    uri: (id) => `${COMPONENT_PREFIX}${id}`,
    override: describeRefinements,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]),
  ) as Record<string, JsonSchema>;
};

const ref = (name: string) => ({ $ref: `${COMPONENT_PREFIX}${name}` });

/** The envelope the handlers parse: `{data}` and nothing else. */
export const requestBodySchema = <S extends z.core.$ZodType>(request: S) => z.strictObject({ data: request });

const errorExample = (error: ApiError) => errorBody(error.status, error.message, error.details);

/** Sent with the service's own 429 (not with API Gateway's): whole seconds to wait. */
const RETRY_AFTER_HEADER = {
  description: "Seconds to wait before the next request (the service's rate limit; absent from API Gateway's own 429).",
  schema: { type: 'integer', minimum: 1 },
};

const EXAMPLE_REQUEST_ID = '5f0c8f7e-2a4b-4d51-9c1e-7b9d2f3a6e10';

const errorExamples = (operation: Operation, httpStatus: number) => {
  const examples: Record<string, { summary: string; value: unknown }> = {};
  if (httpStatus === 400) {
    try {
      parseCallableBody(operation.request, { data: operation.invalidExample.value });
      throw new Error(`The invalid example of ${operation.operationId} is valid`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      examples.schemaViolation = { summary: operation.invalidExample.summary, value: errorExample(error) };
    }
  }
  if (httpStatus === 401) {
    examples.unauthenticated = {
      summary: 'Missing or wrong credentials',
      value: errorExample(new ApiError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE)),
    };
  }
  if (httpStatus === 403) {
    examples.permissionDenied = {
      summary: 'Organization not granted',
      value: errorExample(permissionDenied('globex')),
    };
  }
  if (httpStatus === 500) {
    examples.internal = {
      summary: 'Unexpected failure',
      value: internalErrorBody(EXAMPLE_REQUEST_ID),
    };
  }
  for (const [name, example] of Object.entries(operation.errorExamples ?? {})) {
    if (ERROR_HTTP_STATUS[example.value.error.status] === httpStatus) examples[name] = example;
  }
  return examples;
};

/** The header of the routes that start a job (docs/api.md, Idempotency-Key). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a repeat safe: the same request with the same key, by the same credential within 24 hours, answers what ' +
    'the first one answered (whatever happened since); the same key with another request is refused (400 ' +
    'INVALID_ARGUMENT naming the header) and starts nothing. While the first request with the key is still being ' +
    'answered, a repeat is 409 ABORTED. Only a success is kept: after an error, a repeat runs again.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const operationObject = (operation: Operation) => ({
  operationId: operation.operationId,
  summary: operation.summary,
  description: `${operation.description}\n\nScope: \`${operation.scope}\` (or \`admin\`).`,
  'x-scope': operation.scope,
  tags: [operation.tag],
  ...(operation.idempotencyKey ? { parameters: [IDEMPOTENCY_KEY_PARAMETER] } : {}),
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: ref(`${operation.name}RequestBody`),
        examples: Object.fromEntries(
          Object.entries(operation.examples).map(([name, { summary, value }]) => [
            name,
            { summary, value: { data: value } },
          ]),
        ),
      },
    },
  },
  responses: Object.fromEntries(
    responsesOf(operation).map(({ httpStatus, name, description }) => {
      const examples =
        httpStatus === 200
          ? Object.fromEntries(
              Object.entries(operation.examples).map(([exampleName, { summary, result }]) => [
                exampleName,
                { summary, value: { result: { status: 'success', message: operation.message, data: result } } },
              ]),
            )
          : errorExamples(operation, httpStatus);
      const content: Record<string, unknown> = { schema: ref(name) };
      if (Object.keys(examples).length > 0) content.examples = examples;
      return [
        String(httpStatus),
        {
          description,
          ...(httpStatus === 429 ? { headers: { 'Retry-After': RETRY_AFTER_HEADER } } : {}),
          content: { 'application/json': content },
        },
      ];
    }),
  ),
});

const DESCRIPTION = [
  'Notification preferences (per user, per document or organization-wide, for the inbox, email and slack channels)',
  'and asynchronous document migration.',
  '',
  '**Protocol.** Every operation is `POST` with `Content-Type: application/json` (parameters such as `charset` and',
  'any letter case are accepted), both authentication headers, and a JSON object body whose only key is `data`.',
  'Success: `200 {"result":{"status":"success","message":…,"data":…}}`. Error:',
  '`{"error":{"message":…,"status":…,"details"?:…}}` with the HTTP code of its status:',
  '',
  '| status | HTTP |',
  '|---|---|',
  ...ERROR_STATUSES.map((status) => `| ${status} | ${ERROR_HTTP_STATUS[status]} |`),
  '',
  'Authentication runs before anything about the body is checked. Other methods on an operation path answer',
  '400 INVALID_ARGUMENT; any other path answers 404 NOT_FOUND in the same envelope (the `$default` route, see',
  '`components.responses.UnknownRoute`). API Gateway itself may answer 429 (throttling), 500 or 503 with its own',
  '`{"message":…}` body.',
  '',
  `**Limits.** Identifiers 1 to ${MAX_IDENTIFIER_LENGTH} characters without control characters; \`userIds\``,
  `1 to ${MAX_USER_IDS} entries; \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present; body at most ${MAX_BODY_BYTES} bytes (1 MiB).`,
  'Exceeding any limit is INVALID_ARGUMENT with a message naming it.',
  '',
  'The API is server to server: the token is a secret that never belongs in a browser, and no CORS headers are sent.',
].join('\n');

/** What a group of operations says beyond its operations: the pages the links open, which are no operation. */
const TAG_DESCRIPTIONS: Record<string, string> = { 'Links in emails': LINK_PAGES_DESCRIPTION };

/** What the fields of the shared components mean (each operation documents its own: operation-docs/). */
const COMPONENT_FIELDS: Record<string, FieldDocs> = {
  UserWriteResult: {
    documentId: 'The (first) document, or null for the organization-level entry.',
    documentIds: 'Every document, when several were named.',
  },
  ConfigView: {
    config: 'What is stored for the entry for all categories; channels never set are absent.',
    categories: "The entry's stored category layers, keyed by category id ({} when none).",
    effective: "Every channel resolved (for the request's `category` when given), in the order config/get describes.",
    source: 'Which layer gave each effective channel.',
    trace: 'With `explain`: per channel, every layer that has a value, the winner first, `default` last.',
  },
};

export const buildOpenApiDocument = (): OpenApiDocument => {
  const unknownRoute = unknownRouteResponse();
  const schemas = {
    ...componentSchemas((registry) => {
      for (const operation of OPERATIONS) {
        registry.add(operation.request, { id: `${operation.name}Request` });
        registry.add(requestBodySchema(operation.request), { id: `${operation.name}RequestBody` });
      }
    }, 'input'),
    ...componentSchemas((registry) => {
      registry.add(errorStatus, { id: 'ErrorStatus' });
      registry.add(errorEnvelope(), { id: 'Error' });
      registry.add(gatewayError, { id: 'GatewayError' });
      registry.add(deliverySetting, { id: 'DeliverySetting' });
      registry.add(userWriteResult(), { id: 'UserWriteResult' });
      registry.add(configView(), { id: 'ConfigView' });
      registry.add(migrationState(), { id: 'MigrationState' });
      for (const operation of OPERATIONS) {
        registry.add(operation.result, { id: `${operation.name}Result` });
        for (const response of responsesOf(operation)) {
          if (!registry.has(response.schema)) registry.add(response.schema, { id: response.name });
        }
      }
      registry.add(unknownRoute.schema, { id: unknownRoute.name });
    }, 'output'),
  };
  for (const [name, fields] of Object.entries(COMPONENT_FIELDS)) describeFields(schemas[name] ?? {}, fields, name);
  for (const operation of OPERATIONS) {
    describeFields(schemas[`${operation.name}Request`] ?? {}, operation.fields?.request, operation.operationId);
    describeFields(schemas[`${operation.name}Result`] ?? {}, operation.fields?.result, operation.operationId);
  }

  return {
    openapi: '3.1.0',
    info: { title: 'Notification preferences service', version: '2.0.0', description: DESCRIPTION },
    servers: [
      { url: 'http://127.0.0.1:3000', description: 'Local server (npm start)' },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: 'Deployed stack: the ApiUrl output',
        variables: { apiId: { default: 'your-api-id' }, region: { default: 'eu-west-1' } },
      },
    ],
    security: [{ ApiKey: [], AuthToken: [] }],
    tags: [...new Set(OPERATIONS.map((operation) => operation.tag))].map((name) => ({
      name,
      ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}),
    })),
    paths: Object.fromEntries(OPERATIONS.map((operation) => [operation.path, { post: operationObject(operation) }])),
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: API_KEY_HEADER,
          description: `Public identifier of the credential. Always sent together with ${AUTH_TOKEN_HEADER}.`,
        },
        AuthToken: {
          type: 'apiKey',
          in: 'header',
          name: AUTH_TOKEN_HEADER,
          description: `Secret token of the credential (printed once when created). Always sent together with ${API_KEY_HEADER}.`,
        },
      },
      schemas,
      responses: {
        UnknownRoute: {
          description: unknownRoute.description,
          content: {
            'application/json': {
              schema: ref(unknownRoute.name),
              example: errorBody('NOT_FOUND', 'No route for POST /v2/unknown.'),
            },
          },
        },
      },
    },
  };
};
