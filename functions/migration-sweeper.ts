import { scheduledJob } from '#shared/edge/scheduled-job.js';
import { SqsMigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { sweepMigrations, sweepSummary } from '#shared/migration/sweep.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, stallLimitSeconds, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

/** Resumes or fails stuck migrations, on a schedule (docs/design.md, Stuck migrations); see shared/migration/sweep.ts. */
const stallSeconds = stallLimitSeconds();
const deps = {
  repository: new DynamoMigrationRepository(documentClient, tableName('migrations')),
  queue: new SqsMigrationQueue(sqsClient, queueUrl('migrations')),
  ...(stallSeconds === undefined ? {} : { stallLimitMs: stallSeconds * 1000 }),
};

export const handler = scheduledJob(async () => sweepSummary(await sweepMigrations(deps)));
