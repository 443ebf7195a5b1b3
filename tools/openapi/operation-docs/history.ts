import { INVALID_CURSOR_MESSAGE } from '#shared/history/cursor.js';
import {
  DEFAULT_HISTORY_LIMIT,
  type getConfigHistoryRoute,
  MAX_HISTORY_LIMIT,
} from '#shared/history/routes/get-config-history.js';
import { BODY_RULE, IDENTIFIER_RULE, type OperationDocs, withInvalidArgument } from './common.js';

export const getConfigHistoryDocs: OperationDocs<typeof getConfigHistoryRoute> = {
  tag: 'Notification config',
  name: 'ConfigHistory',
  summary: "A user's config changes in an organization, newest first",
  description: [
    'Every change of a stored entry of the user in the organization: sets, resets, a migration moving the entry,',
    'newest first, one change per layer of the entry that changed (`category`: the category id, or null for the',
    'all-categories layer). Each change says what caused it (`set`, `reset`, `migration`, `erasure`, `link`), who',
    '(`changedBy`: the api key, `migration:<migrationId>`, `erasure:<erasureId>` or `link:<keyId>`), when, and that',
    "layer's stored channels `before` and `after` (`{}` when there were none). A change is recorded from the table's",
    'change stream: it shows within a few seconds of the write, and a write that was not stored never shows.',
    '`documentId` picks one document, `null` the organization-level entry; omitted, every entry. `category` picks one',
    "category's layer, `null` the all-categories layer; omitted, every layer (a page filtered by category may hold",
    'fewer than `limit` changes while `nextCursor` is present). Pages: pass `nextCursor` as `cursor` for the next one. Changes expire after the',
    "deployment's retention time (365 days unless configured). An erasure removes the user's history.",
    '',
    `Limits: \`limit\` 1 to ${MAX_HISTORY_LIMIT} (default ${DEFAULT_HISTORY_LIMIT}); \`cursor\` only from an answer to the same`,
    'organization, user and documentId (a cursor is opaque and authenticated: altered, it is refused).',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withInvalidArgument(
    'Also a `cursor` that is not one this request could have answered: of another request, altered, or sealed with a retired key.',
  ),
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
            category: null,
            cause: 'reset',
            changedAt: '2026-11-22T09:00:02.000Z',
            changedBy: 'ak_1f3e5d7c9b0a2c4e6f8d0b1a',
            evidence: { via: 'api' },
            before: { inbox: 'NONE' },
            after: {},
          },
        ],
        nextCursor:
          'eyJwayI6IkgjYWNtZSNhbGljZSIsInNrIjoiMjAyNi0xMS0yMlQwOTowMDowMi4wMDBaIzAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMTIifQ',
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
            category: null,
            cause: 'set',
            changedAt: '2026-11-22T09:00:01.000Z',
            changedBy: 'ak_1f3e5d7c9b0a2c4e6f8d0b1a',
            evidence: {
              via: 'api',
              source: 'settings',
              capturedAt: '2026-11-22T09:00:00.000Z',
              textVersion: 'notifications-v3',
              textSha256: '9f2b6c1e4d8a7f3b5e0c2a9d6f1b8e4c7a3d0f5b2e9c6a1d8f4b7e0c3a6d9f2b',
            },
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
  fields: {
    result: {
      changes: 'Newest first.',
      'changes[].changeId': 'Unique per change; the same in the history and in its event.',
      'changes[].documentId': 'The document, or null for the organization-level entry.',
      'changes[].category': 'The category layer that changed, or null for the all-categories layer.',
      'changes[].cause': 'What made the change.',
      'changes[].changedAt': 'ISO-8601 UTC time of the change.',
      'changes[].changedBy':
        'The api key for set and reset, `migration:<migrationId>`, `erasure:<erasureId>` or `link:<keyId>` otherwise.',
      'changes[].before': "The layer's stored channels before the change; {} when there were none.",
      'changes[].after': "The layer's stored channels after the change; {} when there are none.",
      nextCursor: 'Present when more changes follow: pass it as `cursor` to read the next page.',
    },
  },
};
