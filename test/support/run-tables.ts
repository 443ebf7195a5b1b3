import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTables } from '#local/dynamo.js';

/**
 * The access key of the database that holds the run's tables in the shared DynamoDB Local
 * (without -sharedDb, each access key has a database of its own): the global setup creates them
 * once, under their local names, and every test file that uses them signs with this key
 * (test/support/dynamo.ts).
 */
export const RUN_TABLES_KEY = 'tests';

/** Creates the run's tables, once the shared DynamoDB Local answers at `endpoint`. */
export const createRunTables = async (endpoint: string): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: RUN_TABLES_KEY, secretAccessKey: 'local' },
  });
  try {
    await ensureTables(client);
  } finally {
    client.destroy();
  }
};
