import { scheduledJob } from '#shared/edge/scheduled-job.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { sweepJobs, sweepKinds } from '#shared/jobs/sweep.js';
import { migrationJob } from '#shared/migration/kind.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, stallLimitSeconds, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

/** Resumes or fails stuck migrations, on a schedule (docs/design.md, Stuck migrations); see shared/jobs/sweep.ts. */
const stallSeconds = stallLimitSeconds();
const migrations = {
  repository: new DynamoJobRepository(migrationJob, documentClient, tableName('migrations')),
  queue: new SqsJobQueue(migrationJob, sqsClient, queueUrl('migrations')),
  ...(stallSeconds === undefined ? {} : { stallLimitMs: stallSeconds * 1000 }),
};

export const handler = scheduledJob(() => sweepKinds([() => sweepJobs(migrationJob, migrations)]));
