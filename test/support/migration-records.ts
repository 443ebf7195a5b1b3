import type { SQSRecord } from 'aws-lambda';
import type { MigrationRecord } from '#shared/migration/model.js';

/** A migration in progress, as the repository stores it, for the consumer's unit tests. */
export const migrationRecord = (migrationId: string, overrides: Partial<MigrationRecord> = {}): MigrationRecord => ({
  migrationId,
  organizationId: 'org-1',
  documentId: `${migrationId}-src`,
  newDocumentId: `${migrationId}-dst`,
  status: 'in_progress',
  moved: 0,
  skipped: 0,
  createdAt: '2026-03-01T00:00:00.000Z',
  updatedAt: '2026-03-01T00:00:00.000Z',
  runs: {},
  skippedCheckpoint: [],
  ...overrides,
});

/** A message of the migrations queue as Lambda's SQS event source delivers it. */
export const sqsRecord = (
  body: string,
  receiveCount = 1,
  messageId = `msg-${body.length}-${receiveCount}`,
): SQSRecord => ({
  messageId,
  receiptHandle: `rh-${messageId}`,
  body,
  attributes: {
    ApproximateReceiveCount: String(receiveCount),
    SentTimestamp: '1772323200000',
    SenderId: 'AIDA',
    ApproximateFirstReceiveTimestamp: '1772323200000',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:migrations',
  awsRegion: 'eu-west-1',
});
