import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type EmbeddedDynamo, ensureTables, startEmbeddedDynamo } from '#local/dynamo.js';
import { TABLES } from '#shared/deployment/tables.js';
import { createDocumentClient } from '#shared/lambda/aws-clients.js';

export interface TestDynamo {
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  endpoint: string;
  /** Table names of this test run (unique per call to `createTables`). */
  tables: Record<keyof typeof TABLES, string>;
  /** Creates a fresh set of tables and points `tables` at them: isolation between tests. */
  createTables(): Promise<Record<keyof typeof TABLES, string>>;
  close(): Promise<void>;
}

/** An in-memory dynalite for integration tests, with the service's tables created. */
export const startTestDynamo = async (): Promise<TestDynamo> => {
  const dynamo: EmbeddedDynamo = await startEmbeddedDynamo();
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  });
  const doc = createDocumentClient(client);
  const result: TestDynamo = {
    client,
    doc,
    endpoint: dynamo.endpoint,
    tables: { config: '', migrations: '', credentials: '' },
    async createTables() {
      const suffix = randomUUID().slice(0, 8);
      const names = {
        config: `${TABLES.config.localName}-${suffix}`,
        migrations: `${TABLES.migrations.localName}-${suffix}`,
        credentials: `${TABLES.credentials.localName}-${suffix}`,
      };
      const byEnv = new Map<string, string>(
        Object.entries(TABLES).map(([key, table]) => [table.id, names[key as keyof typeof names]]),
      );
      await ensureTables(client, (table) => byEnv.get(table.id) as string);
      result.tables = names;
      return names;
    },
    async close() {
      client.destroy();
      await dynamo.close();
    },
  };
  await result.createTables();
  return result;
};
