import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { newAwsCredential } from '#local/aws-credential.js';
import { ensureTables, SHARED_DYNAMODB_LOCAL_ENV, startEmbeddedDynamo } from '#local/dynamo.js';
import { waitUntilAnswering } from '#local/dynamodb-local.js';
import { TABLES, type TableDefinition } from '#service/tables.js';
import { createDocumentClient } from '#shared/platform/aws-clients.js';

/** Set by the Jest global setup (test/support/dynamo-global.ts): one DynamoDB Local for the whole run. */
export const SHARED_DYNAMO_ENV = SHARED_DYNAMODB_LOCAL_ENV;

export interface TestDynamo {
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  endpoint: string;
  /** What to sign with (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY for functions under test). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Table names of this test run (unique per call to `createTables`). */
  tables: Record<keyof typeof TABLES, string>;
  /** Creates a fresh set of tables and points `tables` at them: isolation between tests. */
  createTables(): Promise<Record<keyof typeof TABLES, string>>;
  close(): Promise<void>;
}

const tableNames = (name: (table: TableDefinition) => string) =>
  Object.fromEntries(Object.entries(TABLES).map(([key, table]) => [key, name(table)])) as Record<
    keyof typeof TABLES,
    string
  >;

/**
 * DynamoDB Local for integration tests, with the service's tables created. Under Jest every
 * test file shares the run's one instance (a JVM takes a second or more to start), isolated by
 * table names unique to each call of `createTables`; elsewhere it starts its own, in memory.
 * (In-memory local runtimes join it too, each in a database of its own: local/dynamo.ts.)
 *
 * Each call also gets a database of its own in the shared instance (its access key picks it):
 * DynamoDB Local keeps the stream records of deleted tables, and every write to a table with a
 * stream slows down with the records its database holds (1,500 puts: 1 s in a fresh database,
 * 24 s in one that had served the large-migration test). Functions under test must sign with
 * `credentials`.
 */
export const startTestDynamo = async (): Promise<TestDynamo> => {
  const shared = process.env[SHARED_DYNAMO_ENV];
  const own = shared ? undefined : await startEmbeddedDynamo({ credentials: newAwsCredential() });
  const endpoint = shared ?? (own?.endpoint as string);
  if (shared) await waitUntilAnswering(shared);
  const credentials = {
    accessKeyId: shared ? `test${randomUUID().replaceAll('-', '')}` : (own?.credentials.accessKeyId as string),
    secretAccessKey: 'local',
  };
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials,
    maxAttempts: 3,
  });
  const doc = createDocumentClient(client);
  const created: string[] = [];
  const result: TestDynamo = {
    client,
    doc,
    endpoint,
    credentials,
    tables: tableNames(() => ''),
    async createTables() {
      const suffix = randomUUID().slice(0, 8);
      const names = tableNames((table) => `${table.localName}-${suffix}`);
      const byEnv = new Map<string, string>(
        Object.entries(TABLES).map(([key, table]) => [table.id, names[key as keyof typeof names]]),
      );
      await ensureTables(client, (table) => byEnv.get(table.id) as string);
      created.push(...Object.values(names));
      result.tables = names;
      return names;
    },
    async close() {
      // The shared instance outlives this file: free the memory its tables hold.
      if (shared) {
        for (const TableName of created.splice(0)) {
          await client.send(new DeleteTableCommand({ TableName })).catch(() => {});
        }
      }
      client.destroy();
      await own?.close();
    },
  };
  await result.createTables();
  return result;
};
