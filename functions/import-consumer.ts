import { DynamoConsentTextStore } from '#shared/consent/text-store.js';
import { queueConsumer } from '#shared/edge/queue-consumer.js';
import { FileStore } from '#shared/files/store.js';
import { importJob } from '#shared/imports/kind.js';
import { importMessage, importOfUpload } from '#shared/imports/upload.js';
import { runImport } from '#shared/imports/worker.js';
import { SqsJobQueue } from '#shared/jobs/queue.js';
import { DynamoJobRepository } from '#shared/jobs/repository.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import {
  filesBucketName,
  importWritesPerSecond,
  maxReceiveCount,
  policyCacheSeconds,
  queueUrl,
  tableName,
} from '#shared/platform/environment.js';
import { s3Client } from '#shared/platform/s3-client.js';
import { sqsClient } from '#shared/platform/sqs-client.js';
import { DynamoPolicyStore } from '#shared/policy/dynamo-store.js';
import { PolicyReader } from '#shared/policy/reader.js';
import { DynamoEntryChanges } from '#shared/preferences/dynamo-entry-changes.js';
import { DynamoPreferenceStore } from '#shared/preferences/dynamo-store.js';

/** SQS consumer of the import queue (docs/design.md, Imports): S3's notices of uploads, and the engine's messages. */
const preferences = new DynamoPreferenceStore(documentClient, tableName('config'));
const changes = new DynamoEntryChanges(documentClient, tableName('config'));
const repository = new DynamoJobRepository(importJob, documentClient, tableName('migrations'));
const deps = {
  files: new FileStore(s3Client, filesBucketName()),
  entries: {
    getEntries: preferences.getEntries.bind(preferences),
    writeChanges: changes.writeChanges.bind(changes),
  },
  policies: new PolicyReader(new DynamoPolicyStore(documentClient, tableName('config')), policyCacheSeconds()),
  texts: new DynamoConsentTextStore(documentClient, tableName('config')),
  writesPerSecond: importWritesPerSecond(),
  repository,
  queue: new SqsJobQueue(importJob, sqsClient, queueUrl('imports')),
};

export const handler = queueConsumer({
  message: importMessage,
  name: 'import message',
  maxReceiveCount: maxReceiveCount('imports'),
  handle: async (message, delivery) => {
    if ('test' in message) return;
    if ('importId' in message) return runImport(deps, message.importId, delivery);
    for (const key of message.uploadedKeys) {
      const importId = await importOfUpload(repository, key, new Date());
      if (importId !== undefined) await runImport(deps, importId, delivery);
    }
  },
});
