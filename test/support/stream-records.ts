import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';

/** Stream records as Lambda delivers them, for tests. */
let sequence = 100;

export const streamArn = (table: string) =>
  `arn:aws:dynamodb:eu-west-1:123456789012:table/${table}/stream/2026-01-01T00:00:00.000`;

export const streamRecord = (
  table: string,
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  images: { old?: Record<string, unknown>; new?: Record<string, unknown> },
  sequenceNumber = String(++sequence),
): DynamoDBRecord => ({
  eventID: `event-${sequenceNumber}`,
  eventName,
  eventSource: 'aws:dynamodb',
  eventVersion: '1.1',
  awsRegion: 'eu-west-1',
  eventSourceARN: streamArn(table),
  dynamodb: {
    SequenceNumber: sequenceNumber,
    SizeBytes: 100,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
    ApproximateCreationDateTime: 1_767_225_600,
    Keys: marshall({ pk: (images.new ?? images.old)?.pk, sk: (images.new ?? images.old)?.sk }) as never,
    ...(images.old ? { OldImage: marshall(images.old, { removeUndefinedValues: true }) as never } : {}),
    ...(images.new ? { NewImage: marshall(images.new, { removeUndefinedValues: true }) as never } : {}),
  },
});

/** A config entry item as the store writes it. */
export const entryItem = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  pk: 'DOC#acme#doc-1',
  sk: 'alice',
  organizationId: 'acme',
  userId: 'alice',
  documentId: 'doc-1',
  scope: 'document',
  updatedAt: '2026-01-01T00:00:00.000Z',
  updatedBy: 'ak_1',
  version: 1,
  changeCause: 'set',
  changedBy: 'ak_1',
  changedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

/** A migration record of the jobs table as the repository writes it (no status: each test says it). */
export const migrationItem = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  pk: 'MIGRATION#m1',
  sk: 'RECORD',
  migrationId: 'm1',
  organizationId: 'acme',
  documentId: 'doc-1',
  newDocumentId: 'doc-2',
  moved: 3,
  skipped: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:05.000Z',
  runs: {},
  ...overrides,
});
