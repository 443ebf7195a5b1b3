import { jobConsumer } from '#shared/edge/job-consumer.js';
import { DynamoExportEntryStore } from '#shared/exports/entries.js';
import { exportJob } from '#shared/exports/kind.js';
import { runExport } from '#shared/exports/worker.js';
import { FileStore } from '#shared/files/store.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { filesBucketName, queueUrl, tableName } from '#shared/platform/environment.js';
import { s3Client } from '#shared/platform/s3-client.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

/** SQS consumer of the export queue (docs/design.md, Exports); see shared/exports/worker.ts. */
const deps = {
  entries: new DynamoExportEntryStore(documentClient, tableName('config')),
  files: new FileStore(s3Client, filesBucketName()),
  repository: new DynamoJobRepository(exportJob, documentClient, tableName('migrations')),
  queue: new SqsJobQueue(exportJob, sqsClient, queueUrl('exports')),
};

export const handler = jobConsumer(exportJob, 'exports', (exportId, delivery) => runExport(deps, exportId, delivery));
