import { ENV } from '#shared/platform/environment.js';

/** Environment the handler modules read at import time, for unit tests with mocked clients. */
export const setUnitTestEnv = (): void => {
  process.env[ENV.configTable] = 'config-table';
  process.env[ENV.migrationsTable] = 'migrations-table';
  process.env[ENV.credentialsTable] = 'credentials-table';
  process.env[ENV.historyTable] = 'history-table';
  process.env[ENV.migrationQueueUrl] = 'https://sqs.eu-west-1.amazonaws.com/000000000000/migrations';
  process.env[ENV.migrationMaxReceiveCount] = '5';
  process.env[ENV.erasureQueueUrl] = 'https://sqs.eu-west-1.amazonaws.com/000000000000/erasures';
  process.env[ENV.erasureMaxReceiveCount] = '5';
  process.env[ENV.credentialCacheSeconds] = '60';
  process.env.AWS_REGION = 'eu-west-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
};
