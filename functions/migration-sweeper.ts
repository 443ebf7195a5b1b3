import { scheduledJob } from '#shared/edge/scheduled-job.js';
import { erasureJob } from '#shared/erasure/kind.js';
import { exportJob } from '#shared/exports/kind.js';
import { importJob } from '#shared/imports/kind.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { sweepJobs, sweepKinds } from '#shared/jobs/sweep.js';
import { migrationJob } from '#shared/migration/kind.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, stallLimitSeconds, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

/**
 * Resumes or fails stuck jobs, migrations and erasures, on a schedule (docs/design.md, Stuck
 * jobs); see shared/jobs/sweep.ts.
 */
const stallSeconds = stallLimitSeconds();
const limits = stallSeconds === undefined ? {} : { stallLimitMs: stallSeconds * 1000 };
const table = tableName('migrations');
const migrations = {
  repository: new DynamoJobRepository(migrationJob, documentClient, table),
  queue: new SqsJobQueue(migrationJob, sqsClient, queueUrl('migrations')),
  ...limits,
};
const erasures = {
  repository: new DynamoJobRepository(erasureJob, documentClient, table),
  queue: new SqsJobQueue(erasureJob, sqsClient, queueUrl('erasures')),
  ...limits,
};

const imports = {
  repository: new DynamoJobRepository(importJob, documentClient, table),
  queue: new SqsJobQueue(importJob, sqsClient, queueUrl('imports')),
  ...limits,
};

const exports = {
  repository: new DynamoJobRepository(exportJob, documentClient, table),
  queue: new SqsJobQueue(exportJob, sqsClient, queueUrl('exports')),
  ...limits,
};

export const handler = scheduledJob(() =>
  sweepKinds([
    () => sweepJobs(migrationJob, migrations),
    () => sweepJobs(erasureJob, erasures),
    () => sweepJobs(exportJob, exports),
    () => sweepJobs(importJob, imports),
  ]),
);
