import { httpRoute } from '#shared/edge/http-route.js';
import { SqsErasureQueue } from '#shared/erasure/queue.js';
import { DynamoErasureRepository } from '#shared/erasure/repository.js';
import { eraseUserRoute } from '#shared/erasure/routes/erase-user.js';
import { startErasure } from '#shared/erasure/start.js';
import { documentClient } from '#shared/platform/aws-clients.js';
import { queueUrl, tableName } from '#shared/platform/environment.js';
import { sqsClient } from '#shared/platform/sqs-client.js';

const repository = new DynamoErasureRepository(documentClient, tableName('migrations'));
const queue = new SqsErasureQueue(sqsClient, queueUrl('erasures'));

export const handler = httpRoute(eraseUserRoute, ({ data }) => startErasure({ repository, queue }, data));
