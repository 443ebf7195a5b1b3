import { httpRoute } from '#shared/edge/http-route.js';
import { SqsMigrationQueue } from '#shared/migration/queue.js';
import { DynamoMigrationRepository } from '#shared/migration/repository.js';
import { migrateDocumentRoute } from '#shared/migration/routes/migrate-document.js';
import { startMigration } from '#shared/migration/start.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

const repository = new DynamoMigrationRepository(documentClient, tableName('migrations'));
const queue = new SqsMigrationQueue(sqsClient, queueUrl('migrations'));

export const handler = httpRoute(migrateDocumentRoute, ({ data }) => startMigration({ repository, queue }, data));
