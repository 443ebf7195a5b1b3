import { SqsMigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { createSweepHandler, stallLimitMs } from '#shared/migration/sweeper.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

/** Resumes or fails stuck migrations, on a schedule (docs/design.md, Stuck migrations); see shared/migration/sweep.ts. */
export const handler = createSweepHandler({
  repository: new DynamoMigrationRepository(documentClient, tableName('migrations')),
  queue: new SqsMigrationQueue(sqsClient, queueUrl('migrations')),
  stallLimitMs: stallLimitMs(),
});
