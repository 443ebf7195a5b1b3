import { erasureJob } from '#shared/erasure/kind.js';
import type { eraseUserRoute } from '#shared/erasure/routes/erase-user.js';
import type { getErasureStatusRoute } from '#shared/erasure/routes/get-erasure-status.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, TIME, withNotFound } from './common.js';

export const EXAMPLE_ERASURE_ID = '01KAR4B2N7QH3M8W6T1X9D5C4F';

export const eraseUserDocs: OperationDocs<typeof eraseUserRoute> = {
  tag: 'User erasure',
  name: 'Erase',
  summary: "Start erasing a user's config and history in an organization",
  description: [
    'Records an erasure (status `pending`), queues it, and answers its `erasureId` at once: every stored entry of the',
    'user in the organization (each document and the organization level) is deleted, then the history of those',
    'entries. Follow it with the status operation. Repeating the request while the erasure is pending or in progress',
    'answers the same `erasureId`; with an `Idempotency-Key` header, a repeat within 24 hours answers the first answer',
    'even after the erasure finished. Writes for the user that land after the erasure completed are kept, like any',
    'new write. The entries are found through an index of the user, never by scanning the table.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
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
  fields: {
    result: {
      erasureId: 'Unique, sortable by creation time.',
    },
  },
};

export const getErasureStatusDocs: OperationDocs<typeof getErasureStatusRoute> = {
  tag: 'User erasure',
  name: 'ErasureStatus',
  summary: 'Read the state and progress of an erasure',
  description: [
    '`status` goes pending → in_progress → completed or failed. `erased` counts the stored entries of the user',
    'deleted so far. An unknown id and an id of another organization both answer 404 NOT_FOUND; a finished',
    "erasure's status is kept 30 days after it finished, then it is unknown too.",
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withNotFound('No erasure with this id in this organization (or it finished over 30 days ago).'),
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
      value: { error: { message: erasureJob.wording.notFound, status: 'NOT_FOUND' } },
    },
  },
  fields: {
    result: {
      erased: "The user's stored entries (documents and the organization level) erased so far.",
      createdAt: TIME,
      updatedAt: TIME,
      completedAt: TIME,
    },
  },
};
