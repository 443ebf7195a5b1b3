import type { z } from 'zod';
import { ERROR_HTTP_STATUS, type ErrorStatus, UNAUTHENTICATED_MESSAGE } from '#shared/api/errors.js';
import { MAX_BODY_BYTES, MAX_DOCUMENT_IDS, MAX_IDENTIFIER_LENGTH, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { ROUTES, type RouteId } from '#shared/deployment/functions.js';
import type { ErrorBody } from '#shared/lambda/responses.js';
import { MIGRATE_MESSAGE, NOT_FOUND_MESSAGE, STATUS_MESSAGE } from '#shared/migration/model.js';
import { migrateRequest, migrationStatusRequest } from '#shared/migration/schemas.js';
import { getConfigRequest, setConfigRequest } from '#shared/preferences/schemas.js';
import { GET_CONFIG_MESSAGE, SET_CONFIG_MESSAGE } from '#shared/preferences/service.js';
import { errorEnvelope, gatewayError, statusesForHttp, successEnvelope } from './envelopes.js';
import { getConfigResult, migrateResult, migrationStatusResult, setConfigResult } from './responses.js';

/**
 * The one table the OpenAPI document, the response validator and the examples' tests are built
 * from. Paths come from infra/routes.ts (which the stack and the local server use), request
 * schemas are the handlers' own.
 */

export interface ErrorCase {
  status: ErrorStatus;
  when: string;
}

export interface NamedExample<T> {
  summary: string;
  value: T;
}

export interface Operation<Req extends z.core.$ZodType = z.core.$ZodType, Res extends z.ZodType = z.ZodType> {
  id: RouteId;
  operationId: string;
  /** Component names: `<name>Request`, `<name>RequestBody`, `<name>Result`, `<name>Response`. */
  name: string;
  path: string;
  /** Groups operations in the document. */
  tag: string;
  summary: string;
  description: string;
  request: Req;
  result: Res;
  /** The `result.message` the route answers with. */
  message: string;
  errors: ErrorCase[];
  /**
   * Real requests (the value of `data`), each with the `result.data` the service answers when the
   * examples of all operations run in table order on empty tables (a test does exactly that).
   */
  examples: Record<string, NamedExample<z.input<Req>> & { result: z.output<Res> }>;
  /** Invalid `data` whose real INVALID_ARGUMENT answer is shown as an example. */
  invalidExample: NamedExample<unknown>;
  /** Route-specific error answers shown as examples. */
  errorExamples?: Record<string, NamedExample<ErrorBody>>;
}

const pathOf = (id: RouteId): string => {
  const route = ROUTES.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`No route ${id} in infra/routes.ts`);
  return route.path;
};

const IDENTIFIER_RULE =
  `Identifiers are 1 to ${MAX_IDENTIFIER_LENGTH} characters (UTF-16 code units), without control characters ` +
  '(Unicode Cc) and well-formed Unicode; any other character round-trips exactly.';
const BODY_RULE = `The body is at most ${MAX_BODY_BYTES} bytes (1 MiB).`;

/** Errors every route can answer (contract sections 1 and 2). */
export const COMMON_ERRORS: ErrorCase[] = [
  {
    status: 'INVALID_ARGUMENT',
    when:
      'Not POST; Content-Type not application/json; empty, non-JSON or non-object body; missing `data` or another ' +
      'top-level key; a schema violation or a limit exceeded. `message` names the first offending field, `details` ' +
      'lists every issue as {path, message}.',
  },
  {
    status: 'UNAUTHENTICATED',
    when: `Missing header, unknown, revoked or expired API key, or wrong token; always "${UNAUTHENTICATED_MESSAGE}" Checked before the body.`,
  },
  { status: 'PERMISSION_DENIED', when: 'The credential is not granted `data.organizationId`.' },
  {
    status: 'RESOURCE_EXHAUSTED',
    when: 'Throttled. API Gateway stage throttling answers 429 with its own body {"message":"Too Many Requests"}.',
  },
  {
    status: 'INTERNAL',
    when: 'Unexpected failure: a generic message and `details.requestId` to quote to operators. A crashed function answers API Gateway\'s {"message":"Internal Server Error"}.',
  },
  {
    status: 'UNAVAILABLE',
    when: 'A dependency failed after retries; the request is safe to retry. A timed-out function answers API Gateway\'s {"message":"Service Unavailable"}.',
  },
];

const setConfig: Operation<typeof setConfigRequest, typeof setConfigResult> = {
  id: 'ConfigSet',
  operationId: 'setConfig',
  tag: 'Notification config',
  name: 'SetConfig',
  path: pathOf('ConfigSet'),
  summary: 'Set notification config for users',
  description: [
    'Sets the delivery setting of one or more channels (inbox, email, slack: ALL, MINE or NONE) for each user, on each',
    "named document, or on the organization-level entry (the users' default for every document of the organization)",
    'when `documentIds` is omitted. A channel left out keeps its stored value; concurrent requests setting different',
    'channels of one entry both take effect; repeating a request gives the same state (safe to retry).',
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries, \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present`,
    '(duplicates collapsed, first occurrence kept), `config` sets at least one channel and nothing else.',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: setConfigRequest,
  result: setConfigResult,
  message: SET_CONFIG_MESSAGE,
  errors: [
    ...COMMON_ERRORS.filter((error) => error.status !== 'UNAVAILABLE'),
    {
      status: 'UNAVAILABLE',
      when: 'Some writes failed after retries: `details` is the per-user map, failed users with `success: false`. Safe to retry.',
    },
  ],
  examples: {
    oneDocument: {
      summary: 'Two users, one document',
      value: {
        organizationId: 'acme',
        userIds: ['alice', 'bob'],
        documentIds: ['doc-1'],
        config: { email: 'MINE', slack: 'NONE' },
      },
      result: {
        alice: { success: true, userId: 'alice', documentId: 'doc-1', scope: 'document', message: 'Config set.' },
        bob: { success: true, userId: 'bob', documentId: 'doc-1', scope: 'document', message: 'Config set.' },
      },
    },
    severalDocuments: {
      summary: 'One user, several documents',
      value: { organizationId: 'acme', userIds: ['alice'], documentIds: ['doc-2', 'doc-3'], config: { inbox: 'NONE' } },
      result: {
        alice: {
          success: true,
          userId: 'alice',
          documentId: 'doc-2',
          documentIds: ['doc-2', 'doc-3'],
          scope: 'document',
          message: 'Config set.',
        },
      },
    },
    organization: {
      summary: 'Organization-level default (documentIds omitted)',
      value: { organizationId: 'acme', userIds: ['alice'], config: { inbox: 'MINE' } },
      result: {
        alice: { success: true, userId: 'alice', documentId: null, scope: 'organization', message: 'Config set.' },
      },
    },
  },
  invalidExample: {
    summary: 'Unknown channel value and an empty user list',
    value: { organizationId: 'acme', userIds: [], config: { inbox: 'SOME' } },
  },
};

const getConfig: Operation<typeof getConfigRequest, typeof getConfigResult> = {
  id: 'ConfigGet',
  operationId: 'getConfig',
  tag: 'Notification config',
  name: 'GetConfig',
  path: pathOf('ConfigGet'),
  summary: "Read a user's stored and effective notification config",
  description: [
    'Answers one item per requested document, or the organization-level item when `documentIds` is omitted.',
    '`config` is what is stored for that entry (channels never set are absent); `effective` resolves every channel',
    'from the document entry, then the organization entry, then the deployment defaults (inbox ALL, email MINE,',
    'slack NONE unless configured); `source` says which layer gave each channel.',
    '',
    `Limits: \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present (duplicates collapsed).`,
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: getConfigRequest,
  result: getConfigResult,
  message: GET_CONFIG_MESSAGE,
  errors: COMMON_ERRORS,
  examples: {
    document: {
      summary: 'One document',
      value: { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] },
      result: [
        {
          userId: 'alice',
          documentId: 'doc-1',
          scope: 'document',
          config: { email: 'MINE', slack: 'NONE' },
          effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
          source: { inbox: 'organization', email: 'document', slack: 'document' },
        },
      ],
    },
    organization: {
      summary: 'Organization-level entry (documentIds omitted)',
      value: { organizationId: 'acme', userId: 'alice' },
      result: [
        {
          userId: 'alice',
          documentId: null,
          scope: 'organization',
          config: { inbox: 'MINE' },
          effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
          source: { inbox: 'organization', email: 'default', slack: 'default' },
        },
      ],
    },
  },
  invalidExample: {
    summary: 'Missing userId',
    value: { organizationId: 'acme', documentIds: ['doc-1'] },
  },
};

const EXAMPLE_MIGRATION_ID = '01KAR3V6ZQ8W5N4V7T2K9M1C0X';

const migrate: Operation<typeof migrateRequest, typeof migrateResult> = {
  id: 'Migrate',
  operationId: 'migrateDocument',
  tag: 'Document migration',
  name: 'Migrate',
  path: pathOf('Migrate'),
  summary: "Start moving a document's config entries to a new document id",
  description: [
    'Records a migration (status `pending`), queues it, and answers its `migrationId` at once: the answer means',
    'started, not finished; follow it with the status operation. Every document-level entry of',
    '(organizationId, documentId) moves to (organizationId, newDocumentId); per user, the more recently updated',
    'entry wins. Organization-level entries and other organizations are not touched. Repeating the same request',
    'while its migration is pending or in progress answers the same `migrationId` and queues nothing new.',
    '',
    '`documentId` and `newDocumentId` must differ.',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: migrateRequest,
  result: migrateResult,
  message: MIGRATE_MESSAGE,
  errors: [
    {
      status: 'INVALID_ARGUMENT',
      when: `${COMMON_ERRORS[0]?.when} Also \`documentId\` equal to \`newDocumentId\`.`,
    },
    ...COMMON_ERRORS.filter((error) => error.status !== 'INVALID_ARGUMENT' && error.status !== 'UNAVAILABLE'),
    { status: 'ABORTED', when: 'The source or the target document is already part of another active migration.' },
    {
      status: 'UNAVAILABLE',
      when: 'The migration could not be queued (it is marked failed, `details.migrationId` names it) or a dependency failed; safe to retry.',
    },
  ],
  examples: {
    start: {
      summary: 'Move doc-1 to doc-1-v2',
      value: { organizationId: 'acme', documentId: 'doc-1', newDocumentId: 'doc-1-v2' },
      result: { migrationId: EXAMPLE_MIGRATION_ID },
    },
  },
  invalidExample: {
    summary: 'Same source and target',
    value: { organizationId: 'acme', documentId: 'doc-1', newDocumentId: 'doc-1' },
  },
  errorExamples: {
    conflict: {
      summary: 'Another migration is active on one of the documents',
      value: {
        error: {
          message: 'Document "doc-1" or "doc-1-v3" is already part of an active migration; retry once it has finished.',
          status: 'ABORTED',
        },
      },
    },
  },
};

const migrationStatus: Operation<typeof migrationStatusRequest, typeof migrationStatusResult> = {
  id: 'MigrateStatus',
  operationId: 'getMigrationStatus',
  tag: 'Document migration',
  name: 'MigrationStatus',
  path: pathOf('MigrateStatus'),
  summary: 'Read the state and progress of a migration',
  description: [
    '`status` goes pending → in_progress → completed or failed (`error` says why). `moved` and `skipped` count',
    'source entries written to the target and source entries left because the target was newer; they grow while',
    'the migration runs. An unknown id and an id of another organization both answer 404 NOT_FOUND.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: migrationStatusRequest,
  result: migrationStatusResult,
  message: STATUS_MESSAGE,
  errors: [
    ...COMMON_ERRORS.filter(
      (error) => error.status !== 'RESOURCE_EXHAUSTED' && error.status !== 'INTERNAL' && error.status !== 'UNAVAILABLE',
    ),
    { status: 'NOT_FOUND', when: 'No migration with this id in this organization.' },
    ...COMMON_ERRORS.filter(
      (error) => error.status === 'RESOURCE_EXHAUSTED' || error.status === 'INTERNAL' || error.status === 'UNAVAILABLE',
    ),
  ],
  examples: {
    status: {
      summary: 'A completed migration',
      value: { organizationId: 'acme', migrationId: EXAMPLE_MIGRATION_ID },
      result: {
        migrationId: EXAMPLE_MIGRATION_ID,
        organizationId: 'acme',
        documentId: 'doc-1',
        newDocumentId: 'doc-1-v2',
        status: 'completed',
        moved: 2,
        skipped: 0,
        createdAt: '2026-11-22T09:00:00.000Z',
        updatedAt: '2026-11-22T09:00:01.250Z',
        completedAt: '2026-11-22T09:00:01.250Z',
      },
    },
  },
  invalidExample: {
    summary: 'Missing migrationId',
    value: { organizationId: 'acme' },
  },
  errorExamples: {
    unknown: {
      summary: 'Unknown id, or an id of another organization',
      value: { error: { message: NOT_FOUND_MESSAGE, status: 'NOT_FOUND' } },
    },
  },
};

export const OPERATIONS: readonly Operation[] = [setConfig, getConfig, migrate, migrationStatus];

export const operationForPath = (path: string): Operation | undefined =>
  OPERATIONS.find((operation) => operation.path === path);

/** The `$default` route: any other path answers this. */
export const UNKNOWN_ROUTE_STATUS: ErrorStatus = 'NOT_FOUND';

// Statuses API Gateway may answer with its own `{message}` body instead of the envelope.
const GATEWAY_HTTP_STATUSES = new Set([429, 500, 503]);

export interface ResponseSpec {
  httpStatus: number;
  /** Component name of the schema. */
  name: string;
  description: string;
  schema: z.ZodType;
  /** For errors: the statuses this HTTP code carries on this route. */
  statuses?: ErrorStatus[];
}

const pascal = (status: string) =>
  status
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

// One schema instance per status set, so every route refers to the same component.
const errorSchemas = new Map<string, { name: string; schema: z.ZodType }>();

/** The error envelope schema for a set of statuses (one HTTP code), plus API Gateway's body where it applies. */
export const errorSchemaFor = (statuses: ErrorStatus[], httpStatus: number) => {
  const gateway = GATEWAY_HTTP_STATUSES.has(httpStatus);
  const key = `${statuses.join(',')}|${gateway}`;
  let entry = errorSchemas.get(key);
  if (!entry) {
    const base = `${statuses.map(pascal).join('Or')}Error`;
    const envelope = errorEnvelope(statuses);
    entry = gateway
      ? { name: `${statuses.map(pascal).join('Or')}OrGatewayError`, schema: envelope.or(gatewayError) }
      : { name: base, schema: envelope };
    errorSchemas.set(key, entry);
  }
  return entry;
};

const successSchemas = new Map<Operation, z.ZodType>();
export const successSchemaFor = (operation: Operation): z.ZodType => {
  let schema = successSchemas.get(operation);
  if (!schema) {
    schema = successEnvelope(operation.result);
    successSchemas.set(operation, schema);
  }
  return schema;
};

/** Every response of an operation: 200 and one per HTTP code of its error statuses. */
export const responsesOf = (operation: Operation): ResponseSpec[] => {
  const codes = [...new Set(operation.errors.map((error) => ERROR_HTTP_STATUS[error.status]))].sort((a, b) => a - b);
  const listed = operation.errors.map((error) => error.status);
  return [
    {
      httpStatus: 200,
      name: `${operation.name}Response`,
      description: `Success; \`result.message\` is "${operation.message}".`,
      schema: successSchemaFor(operation),
    },
    ...codes.map((httpStatus) => {
      const statuses = statusesForHttp(httpStatus, listed);
      const { name, schema } = errorSchemaFor(statuses, httpStatus);
      const description = operation.errors
        .filter((error) => statuses.includes(error.status))
        .map((error) => `${error.status}: ${error.when}`)
        .join('\n');
      return { httpStatus, name, description, schema, statuses };
    }),
  ];
};

/** What the `$default` route answers for any other path or method-less route. */
export const unknownRouteResponse = (): ResponseSpec => {
  const statuses = [UNKNOWN_ROUTE_STATUS];
  const { name, schema } = errorSchemaFor(statuses, ERROR_HTTP_STATUS[UNKNOWN_ROUTE_STATUS]);
  return {
    httpStatus: ERROR_HTTP_STATUS[UNKNOWN_ROUTE_STATUS],
    name,
    description: 'Any path that is not one of the operations (the `$default` route), whatever the method.',
    schema,
    statuses,
  };
};
