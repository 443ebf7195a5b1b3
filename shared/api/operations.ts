import type { z } from 'zod';
import { type FunctionSpec, HTTP_FUNCTION_BASE, MAX_HTTP_TIMEOUT_SECONDS } from '#service/functions.js';
import { type ErrorStatus, UNAUTHENTICATED_MESSAGE } from '#shared/api/errors.js';
import { MAX_BODY_BYTES, MAX_DOCUMENT_IDS, MAX_IDENTIFIER_LENGTH, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { ERASE_MESSAGE, ERASURE_NOT_FOUND_MESSAGE, ERASURE_STATUS_MESSAGE } from '#shared/erasure/model.js';
import { eraseResult, erasureStatusResult } from '#shared/erasure/results.js';
import { eraseRequest, erasureStatusRequest } from '#shared/erasure/schemas.js';
import { INVALID_CURSOR_MESSAGE } from '#shared/history/cursor.js';
import { ENTRY_INDEX } from '#shared/history/keys.js';
import { HISTORY_MESSAGE } from '#shared/history/read.js';
import { historyResult } from '#shared/history/results.js';
import { DEFAULT_HISTORY_LIMIT, historyRequest, MAX_HISTORY_LIMIT } from '#shared/history/schemas.js';
import { MIGRATE_MESSAGE, NOT_FOUND_MESSAGE, STATUS_MESSAGE } from '#shared/migration/model.js';
import { migrateResult, migrationStatusResult } from '#shared/migration/results.js';
import { migrateRequest, migrationStatusRequest } from '#shared/migration/schemas.js';
import { RESET_CONFIG_MESSAGE } from '#shared/preferences/reset.js';
import { RESOLVE_CONFIG_MESSAGE } from '#shared/preferences/resolve.js';
import {
  getConfigResult,
  resetConfigResult,
  resolveConfigResult,
  setConfigResult,
} from '#shared/preferences/results.js';
import {
  getConfigRequest,
  resetConfigRequest,
  resolveConfigRequest,
  setConfigRequest,
} from '#shared/preferences/schemas.js';
import { GET_CONFIG_MESSAGE, SET_CONFIG_MESSAGE } from '#shared/preferences/service.js';
import type { ErrorBody } from './envelope.js';

/**
 * The API's operations: the one table everything else is derived from. Each entry's
 * `operationId` names it everywhere: its handler file (functions/<kebab-case id>.ts), its
 * Lambda function in the stack and the twin, its OpenAPI operation and components, and its
 * typed client method. The stack builds routes, grants and function settings from `function`;
 * the local twin builds its routes and per-function timeouts from the same; the handler wiring
 * (shared/lambda/http-handler.ts) takes the request schema and message from here.
 */

export interface ErrorCase {
  status: ErrorStatus;
  when: string;
}

export interface NamedExample<T> {
  summary: string;
  value: T;
}

/** What an operation's function is and may touch; its handler file is derived from the operationId. */
export type OperationFunction = Omit<FunctionSpec, 'entry' | 'description'>;

export interface Operation<
  Req extends z.core.$ZodType = z.core.$ZodType,
  Res extends z.core.$ZodType = z.core.$ZodType,
  Id extends string = string,
> {
  operationId: Id;
  /** Component names: `<name>Request`, `<name>RequestBody`, `<name>Result`, `<name>Response`. */
  name: string;
  path: string;
  /** The Lambda function behind the route: settings and least-privilege access. */
  function: OperationFunction;
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

const kebab = (id: string) => id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** The handler file of an operation: `setConfig` -> `functions/set-config.ts`. */
export const handlerEntryOf = (operation: Pick<Operation, 'operationId'>): string =>
  `functions/${kebab(operation.operationId)}.ts`;

/** The full function spec of an operation: its own settings plus what every HTTP function needs. */
export const functionSpecOf = (operation: Operation): FunctionSpec => ({
  ...operation.function,
  entry: handlerEntryOf(operation),
  description: `POST ${operation.path}`,
  tables: { ...operation.function.tables, ...HTTP_FUNCTION_BASE.tables },
  settings: [...HTTP_FUNCTION_BASE.settings, ...(operation.function.settings ?? [])],
});

const IDENTIFIER_RULE =
  `Identifiers are 1 to ${MAX_IDENTIFIER_LENGTH} characters (UTF-16 code units), without control characters ` +
  '(Unicode Cc) and well-formed Unicode; any other character round-trips exactly.';
const BODY_RULE = `The body is at most ${MAX_BODY_BYTES} bytes (1 MiB).`;

/** Errors every route can answer (docs/api.md, Wire protocol and Authentication). */
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

/** Errors of the routes that write per-user entries (config/set, config/reset). */
const WRITE_ERRORS: ErrorCase[] = [
  ...COMMON_ERRORS.filter((error) => error.status !== 'UNAVAILABLE'),
  {
    status: 'UNAVAILABLE',
    when: 'Some writes failed after retries: `details` is the per-user map, failed users with `success: false`. Safe to retry.',
  },
];

const setConfig: Operation<typeof setConfigRequest, typeof setConfigResult, 'setConfig'> = {
  operationId: 'setConfig',
  tag: 'Notification config',
  name: 'SetConfig',
  path: '/v2/notifications/config/set',
  function: {
    // The largest set (1000 users x 30 documents) is 30,000 writes: all the time the HTTP API allows.
    timeoutSeconds: MAX_HTTP_TIMEOUT_SECONDS,
    // A partial update per entry, so concurrent writes of different channels both take effect.
    tables: { config: ['UpdateItem'] },
  },
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
  errors: WRITE_ERRORS,
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

const getConfig: Operation<typeof getConfigRequest, typeof getConfigResult, 'getConfig'> = {
  operationId: 'getConfig',
  tag: 'Notification config',
  name: 'GetConfig',
  path: '/v2/notifications/config/get',
  function: { tables: { config: ['BatchGetItem'] }, settings: ['deliveryDefaults'] },
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

const resolveConfig: Operation<typeof resolveConfigRequest, typeof resolveConfigResult, 'resolveConfig'> = {
  operationId: 'resolveConfig',
  tag: 'Notification config',
  name: 'ResolveConfig',
  path: '/v2/notifications/config/resolve',
  // Reads only: every user's document and organization entries, 100 keys per batched read.
  function: { tables: { config: ['BatchGetItem'] }, settings: ['deliveryDefaults'] },
  summary: 'Who receives an activity on a document, on which channel',
  description: [
    'What a notification dispatcher calls when an activity happens on a document. For each distinct user of',
    '`userIds`, `users` holds the effective setting of every channel and the layer that gave it, exactly as',
    'config/get answers for that user and document. With an `activity`, each user also gets `deliver` (ALL: true;',
    'MINE: true when the user is in `activity.involvedUserIds`, e.g. mentioned or replied to; NONE: false) and',
    '`recipients` lists the delivering user ids per channel, in the order of `userIds`. Without an activity there is',
    'no `deliver` and no `recipients`. Reads only: at most ceil(2N/100) batched reads for N users, issued together.',
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries (duplicates collapsed), \`activity.involvedUserIds\` 0 to`,
    `${MAX_USER_IDS} entries. ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: resolveConfigRequest,
  result: resolveConfigResult,
  message: RESOLVE_CONFIG_MESSAGE,
  errors: COMMON_ERRORS,
  examples: {
    activity: {
      summary: 'A comment that mentions bob, on doc-1',
      value: {
        organizationId: 'acme',
        documentId: 'doc-1',
        userIds: ['alice', 'bob', 'carol'],
        activity: { involvedUserIds: ['bob'] },
      },
      result: {
        documentId: 'doc-1',
        users: {
          alice: {
            userId: 'alice',
            effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'organization', email: 'document', slack: 'document' },
            deliver: { inbox: false, email: false, slack: false },
          },
          bob: {
            userId: 'bob',
            effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'default', email: 'document', slack: 'document' },
            deliver: { inbox: true, email: true, slack: false },
          },
          carol: {
            userId: 'carol',
            effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'default', email: 'default', slack: 'default' },
            deliver: { inbox: true, email: false, slack: false },
          },
        },
        recipients: { inbox: ['bob', 'carol'], email: ['bob'], slack: [] },
      },
    },
    settingsOnly: {
      summary: 'Effective settings only (no activity)',
      value: { organizationId: 'acme', documentId: 'doc-2', userIds: ['alice'] },
      result: {
        documentId: 'doc-2',
        users: {
          alice: {
            userId: 'alice',
            effective: { inbox: 'NONE', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'document', email: 'default', slack: 'default' },
          },
        },
      },
    },
  },
  invalidExample: {
    summary: 'No document and an involved user list that is not a list',
    value: { organizationId: 'acme', userIds: ['alice'], activity: { involvedUserIds: 'bob' } },
  },
};

const resetConfig: Operation<typeof resetConfigRequest, typeof resetConfigResult, 'resetConfig'> = {
  operationId: 'resetConfig',
  tag: 'Notification config',
  name: 'ResetConfig',
  path: '/v2/notifications/config/reset',
  function: {
    // As many writes as the largest set: all the time the HTTP API allows.
    timeoutSeconds: MAX_HTTP_TIMEOUT_SECONDS,
    // Remove channels from an entry, then delete it only if no channel is left.
    tables: { config: ['UpdateItem', 'DeleteItem'] },
  },
  summary: 'Reset notification config to the next layer',
  description: [
    "Removes the stored value of the named channels (all three when `channels` is omitted) from each user's entry",
    'on each named document, or from the organization-level entry when `documentIds` is omitted; an entry left',
    'with no channel is gone for every read. config/get then answers those channels from the next layer (organization, then',
    'the deployment default). Resetting what is not stored succeeds (safe to retry). Same per-user answer and',
    'partial-failure rule as config/set; a reset of a document under migration follows the rule for writes.',
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries, \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present`,
    '(duplicates collapsed), `channels` a non-empty list of distinct channel names when present.',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: resetConfigRequest,
  result: resetConfigResult,
  message: RESET_CONFIG_MESSAGE,
  errors: WRITE_ERRORS,
  examples: {
    oneChannel: {
      summary: "Back to alice's organization default for inbox on doc-2",
      value: { organizationId: 'acme', userIds: ['alice'], documentIds: ['doc-2'], channels: ['inbox'] },
      result: {
        alice: { success: true, userId: 'alice', documentId: 'doc-2', scope: 'document', message: 'Config reset.' },
      },
    },
    organization: {
      summary: 'Every channel of the organization-level entry (documentIds and channels omitted)',
      value: { organizationId: 'acme', userIds: ['carol'] },
      result: {
        carol: { success: true, userId: 'carol', documentId: null, scope: 'organization', message: 'Config reset.' },
      },
    },
  },
  invalidExample: {
    summary: 'An unknown channel and a repeated one',
    value: { organizationId: 'acme', userIds: ['alice'], channels: ['inbox', 'sms'] },
  },
};

const getConfigHistory: Operation<typeof historyRequest, typeof historyResult, 'getConfigHistory'> = {
  operationId: 'getConfigHistory',
  tag: 'Notification config',
  name: 'ConfigHistory',
  path: '/v2/notifications/config/history',
  // Reads only: one Query of the history table, or of its index of one entry's changes.
  function: { tables: { history: ['Query'] }, indexes: { history: [ENTRY_INDEX] } },
  summary: "A user's config changes in an organization, newest first",
  description: [
    'Every change of a stored entry of the user in the organization: sets, resets, a migration moving the entry,',
    'newest first. Each change says what caused it (`set`, `reset`, `migration`, `erasure`), who (`changedBy`: the',
    'api key, or `migration:<migrationId>`), when, and the stored channels `before` and `after` (`{}` when there was',
    "or is no entry). A change is recorded from the table's change stream: it shows within a few seconds of the write,",
    'and a write that was not stored never shows. `documentId` picks one document, `null` the organization-level',
    'entry; omitted, every entry. Pages: pass `nextCursor` as `cursor` for the next one. Changes expire after the',
    "deployment's retention time (365 days unless configured). An erasure removes the user's history.",
    '',
    `Limits: \`limit\` 1 to ${MAX_HISTORY_LIMIT} (default ${DEFAULT_HISTORY_LIMIT}); \`cursor\` only from an answer to the same`,
    `organization, user and documentId. ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: historyRequest,
  result: historyResult,
  message: HISTORY_MESSAGE,
  errors: [
    {
      status: 'INVALID_ARGUMENT',
      when: `${COMMON_ERRORS[0]?.when} Also a \`cursor\` that is not one this request could have answered.`,
    },
    ...COMMON_ERRORS.filter((error) => error.status !== 'INVALID_ARGUMENT'),
  ],
  examples: {
    document: {
      summary: "alice's last change of doc-2",
      value: { organizationId: 'acme', userId: 'alice', documentId: 'doc-2', limit: 1 },
      result: {
        changes: [
          {
            changeId: '6c1f2b0e-3a5d-4f7e-9b8a-2d4c6e8f0a1b',
            organizationId: 'acme',
            userId: 'alice',
            documentId: 'doc-2',
            scope: 'document',
            cause: 'reset',
            changedAt: '2026-11-22T09:00:02.000Z',
            changedBy: 'ak_1f3e5d7c9b0a2c4e6f8d0b1a',
            before: { inbox: 'NONE' },
            after: {},
          },
        ],
        nextCursor: 'eyJwayI6IkgjYWNtZSNhbGljZSIsInNrIjoiMjAyNi0xMS0yMlQwOTowMDowMi4wMDBaIzEyIn0',
      },
    },
    organization: {
      summary: 'The organization-level entry only (documentId null)',
      value: { organizationId: 'acme', userId: 'alice', documentId: null },
      result: {
        changes: [
          {
            changeId: '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a',
            organizationId: 'acme',
            userId: 'alice',
            documentId: null,
            scope: 'organization',
            cause: 'set',
            changedAt: '2026-11-22T09:00:01.000Z',
            changedBy: 'ak_1f3e5d7c9b0a2c4e6f8d0b1a',
            before: {},
            after: { inbox: 'MINE' },
          },
        ],
      },
    },
  },
  invalidExample: {
    summary: 'A limit above 100',
    value: { organizationId: 'acme', userId: 'alice', limit: 500 },
  },
  errorExamples: {
    cursor: {
      summary: 'A cursor from another request, or altered',
      value: { error: { message: INVALID_CURSOR_MESSAGE, status: 'INVALID_ARGUMENT' } },
    },
  },
};

const EXAMPLE_MIGRATION_ID = '01KAR3V6ZQ8W5N4V7T2K9M1C0X';

const migrateDocument: Operation<typeof migrateRequest, typeof migrateResult, 'migrateDocument'> = {
  operationId: 'migrateDocument',
  tag: 'Document migration',
  name: 'Migrate',
  path: '/v2/organizations/documents/migrate',
  function: {
    // Create the record and the document locks, read them, fail, release locks; then queue it.
    tables: { migrations: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    queues: { migrations: ['SendMessage'] },
  },
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

const getMigrationStatus: Operation<typeof migrationStatusRequest, typeof migrationStatusResult, 'getMigrationStatus'> =
  {
    operationId: 'getMigrationStatus',
    tag: 'Document migration',
    name: 'MigrationStatus',
    path: '/v2/organizations/documents/migrate/status',
    function: { tables: { migrations: ['GetItem'] } },
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
        (error) =>
          error.status !== 'RESOURCE_EXHAUSTED' && error.status !== 'INTERNAL' && error.status !== 'UNAVAILABLE',
      ),
      { status: 'NOT_FOUND', when: 'No migration with this id in this organization.' },
      ...COMMON_ERRORS.filter(
        (error) =>
          error.status === 'RESOURCE_EXHAUSTED' || error.status === 'INTERNAL' || error.status === 'UNAVAILABLE',
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

const EXAMPLE_ERASURE_ID = '01KAR4B2N7QH3M8W6T1X9D5C4F';

const eraseUser: Operation<typeof eraseRequest, typeof eraseResult, 'eraseUser'> = {
  operationId: 'eraseUser',
  tag: 'User erasure',
  name: 'Erase',
  path: '/v2/organizations/users/erase',
  function: {
    // Read the user's lock and its erasure, record, lock, fail, release; then queue it.
    tables: { migrations: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    queues: { erasures: ['SendMessage'] },
  },
  summary: "Start erasing a user's config and history in an organization",
  description: [
    'Records an erasure (status `pending`), queues it, and answers its `erasureId` at once: every stored entry of the',
    'user in the organization (each document and the organization level) is deleted, then the history of those',
    'entries. Follow it with the status operation. Repeating the request while the erasure is pending or in progress',
    'answers the same `erasureId`. Writes for the user that land after the erasure completed are kept, like any new',
    'write. The entries are found through an index of the user, never by scanning the table.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: eraseRequest,
  result: eraseResult,
  message: ERASE_MESSAGE,
  errors: [
    ...COMMON_ERRORS.filter((error) => error.status !== 'UNAVAILABLE'),
    {
      status: 'UNAVAILABLE',
      when: 'The erasure could not be queued (it is marked failed, `details.erasureId` names it) or a dependency failed; safe to retry.',
    },
  ],
  examples: {
    start: {
      summary: "Erase bob's config and history in acme",
      value: { organizationId: 'acme', userId: 'bob' },
      result: { erasureId: EXAMPLE_ERASURE_ID },
    },
  },
  invalidExample: { summary: 'Missing userId', value: { organizationId: 'acme' } },
};

const getErasureStatus: Operation<typeof erasureStatusRequest, typeof erasureStatusResult, 'getErasureStatus'> = {
  operationId: 'getErasureStatus',
  tag: 'User erasure',
  name: 'ErasureStatus',
  path: '/v2/organizations/users/erase/status',
  function: { tables: { migrations: ['GetItem'] } },
  summary: 'Read the state and progress of an erasure',
  description: [
    '`status` goes pending → in_progress → completed or failed. `erased` counts the stored entries of the user',
    'deleted so far. An unknown id and an id of another organization both answer 404 NOT_FOUND; a finished',
    "erasure's status is kept 30 days after it finished, then it is unknown too.",
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  request: erasureStatusRequest,
  result: erasureStatusResult,
  message: ERASURE_STATUS_MESSAGE,
  errors: [
    ...COMMON_ERRORS.filter(
      (error) => error.status !== 'RESOURCE_EXHAUSTED' && error.status !== 'INTERNAL' && error.status !== 'UNAVAILABLE',
    ),
    { status: 'NOT_FOUND', when: 'No erasure with this id in this organization (or it finished over 30 days ago).' },
    ...COMMON_ERRORS.filter(
      (error) => error.status === 'RESOURCE_EXHAUSTED' || error.status === 'INTERNAL' || error.status === 'UNAVAILABLE',
    ),
  ],
  examples: {
    status: {
      summary: 'A completed erasure',
      value: { organizationId: 'acme', erasureId: EXAMPLE_ERASURE_ID },
      result: {
        erasureId: EXAMPLE_ERASURE_ID,
        organizationId: 'acme',
        userId: 'bob',
        status: 'completed',
        erased: 2,
        createdAt: '2026-11-22T09:10:00.000Z',
        updatedAt: '2026-11-22T09:10:00.800Z',
        completedAt: '2026-11-22T09:10:00.800Z',
      },
    },
  },
  invalidExample: { summary: 'Missing erasureId', value: { organizationId: 'acme' } },
  errorExamples: {
    unknown: {
      summary: 'Unknown id, or an id of another organization',
      value: { error: { message: ERASURE_NOT_FOUND_MESSAGE, status: 'NOT_FOUND' } },
    },
  },
};

/** Every operation, in the order the documentation lists them. */
export const OPERATIONS = [
  setConfig,
  getConfig,
  resolveConfig,
  resetConfig,
  getConfigHistory,
  migrateDocument,
  getMigrationStatus,
  eraseUser,
  getErasureStatus,
] as const;

export type OperationId = (typeof OPERATIONS)[number]['operationId'];

type OperationById<Id extends OperationId> = Extract<(typeof OPERATIONS)[number], { operationId: Id }>;
/** `data` a client sends to an operation. */
export type OperationInput<Id extends OperationId> =
  OperationById<Id> extends Operation<infer Req, z.core.$ZodType, Id> ? z.input<Req> : never;
/** `result.data` an operation answers. */
export type OperationResult<Id extends OperationId> =
  OperationById<Id> extends Operation<z.core.$ZodType, infer Res, Id> ? z.output<Res> : never;

export const operationById = <Id extends OperationId>(id: Id): OperationById<Id> =>
  OPERATIONS.find((operation) => operation.operationId === id) as OperationById<Id>;

export const operationForPath = (path: string): Operation | undefined =>
  (OPERATIONS as readonly Operation[]).find((operation) => operation.path === path);
