import { ENV, TABLE_ENV } from '#shared/platform/environment.js';
import type { TableName } from '#shared/platform/route.js';

const UNUSED_QUEUE = 'https://sqs.eu-west-1.amazonaws.com/000000000000';

/** Environment the handler modules read at import time, for unit tests with mocked clients. */
export const setUnitTestEnv = (): void => {
  for (const [table, name] of Object.entries(TABLE_ENV)) process.env[name] = `${table}-table`;
  process.env[ENV.migrationQueueUrl] = `${UNUSED_QUEUE}/migrations`;
  process.env[ENV.migrationMaxReceiveCount] = '5';
  process.env[ENV.erasureQueueUrl] = `${UNUSED_QUEUE}/erasures`;
  process.env[ENV.erasureMaxReceiveCount] = '5';
  process.env[ENV.exportQueueUrl] = `${UNUSED_QUEUE}/exports`;
  process.env[ENV.importQueueUrl] = `${UNUSED_QUEUE}/imports`;
  process.env[ENV.exportMaxReceiveCount] = '5';
  process.env[ENV.importMaxReceiveCount] = '5';
  process.env[ENV.filesBucket] = 'files-bucket';
  process.env[ENV.credentialCacheSeconds] = '60';
  process.env[ENV.linkKeysSecret] = 'link-keys-secret';
  process.env.AWS_REGION = 'eu-west-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
};

/**
 * The same, pointed at a test DynamoDB (test/support/dynamo.ts): every table's variable names its
 * table there, so a handler loaded afterwards reads and writes real tables (`endpoint` may be a
 * proxy in front of it, as the fault tests put one).
 */
export const setDynamoTestEnv = (
  dynamo: {
    tables: Record<TableName, string>;
    endpoint: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  },
  endpoint = dynamo.endpoint,
): void => {
  setUnitTestEnv();
  for (const [table, name] of Object.entries(TABLE_ENV)) process.env[name] = dynamo.tables[table as TableName];
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.AWS_REGION = 'local';
  process.env.AWS_ACCESS_KEY_ID = dynamo.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = dynamo.credentials.secretAccessKey;
};
