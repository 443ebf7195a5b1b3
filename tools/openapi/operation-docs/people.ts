import { INVALID_CURSOR_MESSAGE } from '#shared/history/cursor.js';
import { MAX_EXPORT_PAGE_BYTES, MAX_EXPORT_RECORDS } from '#shared/people/records.js';
import { EXPORT_USER_MESSAGE, type exportUserRoute } from '#shared/people/routes/export-user.js';
import { BODY_RULE, IDENTIFIER_RULE, type OperationDocs, TIME, withInvalidArgument } from './common.js';
import { EXAMPLE_ERASURE_ID } from './erasure.js';

const EXPORTED_AT = '2026-11-22T09:30:00.000Z';

export const exportUserDocs: OperationDocs<typeof exportUserRoute> = {
  tag: 'User erasure',
  name: 'UserExport',
  summary: 'Everything the service holds about a user in an organization, page by page',
  description: [
    `${EXPORT_USER_MESSAGE.replace(' successfully.', '')}: what a person may ask for (GDPR Art. 15 and 20), typed by \`kind\`:`,
    '`linkRevocation` (when their links were last revoked), `entry` (each stored entry, the organization level and',
    'each document, with its category layers), `schedule`, `change` (each history item, with its `evidence`) and',
    '`consentText` (each consent text the changes refer to by `textSha256`, once in the whole export). Pass',
    '`nextCursor` as `cursor` for the next page; every record appears exactly once across the pages. After an',
    "erasure of the user completed, the export is the erasure's status record alone (`kind: erasure`), for as long as",
    'that record exists (30 days).',
    '',
    `Limits: a page holds at most ${MAX_EXPORT_RECORDS} records and ${MAX_EXPORT_PAGE_BYTES} bytes of them; \`cursor\``,
    'only from an answer for the same organization and user (opaque and authenticated: altered, it is refused).',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withInvalidArgument(
    'Also a `cursor` that is not one this request could have answered: of another user, altered, or sealed with a retired key.',
  ),
  examples: {
    firstPage: {
      summary: "dana's data in acme (one page)",
      value: { organizationId: 'acme', userId: 'dana' },
      result: {
        organizationId: 'acme',
        userId: 'dana',
        exportedAt: EXPORTED_AT,
        records: [
          {
            kind: 'entry',
            documentId: null,
            scope: 'organization',
            config: { email: 'ALL' },
            categories: {},
            updatedAt: '2026-11-22T09:00:00.000Z',
          },
          {
            kind: 'change',
            changeId: '3f1c2b7e-8d4a-4c6b-9e2f-1a0b3c5d7e9f',
            organizationId: 'acme',
            userId: 'dana',
            documentId: null,
            scope: 'organization',
            category: null,
            cause: 'set',
            changedAt: '2026-11-22T09:00:00.000Z',
            changedBy: 'ak_1f3e5d7c9b0a2c4e6f8d0b1a',
            evidence: {
              via: 'api',
              source: 'signup-form',
              capturedAt: '2026-11-22T09:00:00.000Z',
              textVersion: 'newsletter-v2',
              textSha256: 'b6a4f0c1d1e0f0c8a3e2c9f1f54c3e4a9d3c07c4b0a1f2e3d4c5b6a7980e1f2a',
              ipAddress: '203.0.113.7',
              userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)',
            },
            before: {},
            after: { email: 'ALL' },
          },
          {
            kind: 'consentText',
            sha256: 'b6a4f0c1d1e0f0c8a3e2c9f1f54c3e4a9d3c07c4b0a1f2e3d4c5b6a7980e1f2a',
            text: 'Yes, email me about comments and mentions. I can change this at any time.',
          },
        ],
      },
    },
    erased: {
      summary: 'After an erasure of bob completed: its status record alone',
      value: { organizationId: 'acme', userId: 'bob' },
      result: {
        organizationId: 'acme',
        userId: 'bob',
        exportedAt: EXPORTED_AT,
        records: [
          {
            kind: 'erasure',
            erasureId: EXAMPLE_ERASURE_ID,
            organizationId: 'acme',
            userId: 'bob',
            status: 'completed',
            erased: 2,
            createdAt: '2026-11-22T09:10:00.000Z',
            updatedAt: '2026-11-22T09:10:00.800Z',
            completedAt: '2026-11-22T09:10:00.800Z',
          },
        ],
      },
    },
  },
  invalidExample: { summary: 'Missing userId', value: { organizationId: 'acme' } },
  errorExamples: {
    cursor: {
      summary: 'A cursor of another user, or altered',
      value: { error: { message: INVALID_CURSOR_MESSAGE, status: 'INVALID_ARGUMENT' } },
    },
  },
  fields: {
    request: { cursor: '`nextCursor` of the previous page.' },
    result: {
      exportedAt: TIME,
      nextCursor: 'Present while more records follow: pass it as `cursor`.',
    },
  },
};
