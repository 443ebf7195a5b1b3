import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { newAwsCredential } from '#local/aws-credential.js';
import { ensureTables, SHARED_DYNAMODB_LOCAL_ENV, startEmbeddedDynamo } from '#local/dynamo.js';
import { waitUntilAnswering } from '#local/dynamodb-local.js';
import { TABLE_LIST, TABLES, type TableDefinition } from '#service/tables.js';
import { createDocumentClient } from '#shared/platform/aws-clients.js';
import { RUN_TABLES_KEY } from './run-tables.js';

/** Set by the Jest global setup (test/support/dynamo-global.ts): one DynamoDB Local for the whole run. */
export const SHARED_DYNAMO_ENV = SHARED_DYNAMODB_LOCAL_ENV;

export interface TestDynamo {
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  endpoint: string;
  /** What to sign with (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY for functions under test). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The names of the tables in use. */
  tables: Record<keyof typeof TABLES, string>;
  /** Creates a fresh set of tables (own tables only) and points `tables` at them. */
  createTables(): Promise<Record<keyof typeof TABLES, string>>;
  close(): Promise<void>;
}

export interface TestDynamoOptions {
  /**
   * 'run' (the default): the run's tables, shared by every test file; tests keep apart by
   * organization and user ids of their own (uniqueId), as the data model partitions by them.
   * 'own': a database of its own with tables of its own, for a file whose tests look at whole
   * tables or indexes (a scan, a sweep of every organization's jobs, a table's stream).
   */
  tables?: 'run' | 'own';
}

const tableNames = (name: (table: TableDefinition) => string) =>
  Object.fromEntries(Object.entries(TABLES).map(([key, table]) => [key, name(table)])) as Record<
    keyof typeof TABLES,
    string
  >;

/** An id of `prefix` unique to this call: what keeps a test's items apart from every other test's in the run's tables. */
export const uniqueId = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Waits until the global setup has created the run's tables. */
const runTablesCreated = async (client: DynamoDBClient, timeoutMs = 300_000): Promise<void> => {
  const deadline = performance.now() + timeoutMs;
  for (const table of TABLE_LIST) {
    for (;;) {
      const found = await client
        .send(new DescribeTableCommand({ TableName: table.localName }))
        .then(({ Table }) => Table?.TableStatus === 'ACTIVE')
        .catch(() => false);
      if (found) break;
      if (performance.now() > deadline) throw new Error(`The run's table ${table.localName} was not created`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
};

/**
 * DynamoDB Local for integration tests, with the service's tables. Under Jest every test file
 * shares the run's one instance (a JVM takes a second or more to start); elsewhere it starts its
 * own, in memory. (In-memory local runtimes join it too, each in a database of its own:
 * local/dynamo.ts.) Functions under test must sign with `credentials`.
 *
 * Tables are created once: the run's by the global setup, a file's own when it starts (fresh
 * tables per test, createTables, cost a tenth of a second each). DynamoDB Local keeps the stream
 * records of deleted tables, which slows every later write to a table with a stream in their
 * database: only a file's own database, which nothing uses afterwards, has its tables deleted.
 */
export const startTestDynamo = async ({ tables = 'run' }: TestDynamoOptions = {}): Promise<TestDynamo> => {
  const shared = process.env[SHARED_DYNAMO_ENV];
  const own = shared ? undefined : await startEmbeddedDynamo({ credentials: newAwsCredential() });
  const endpoint = shared ?? (own?.endpoint as string);
  if (shared) await waitUntilAnswering(shared);
  const credentials = {
    accessKeyId: !shared
      ? (own?.credentials.accessKeyId as string)
      : tables === 'run'
        ? RUN_TABLES_KEY
        : `test${randomUUID().replaceAll('-', '')}`,
    secretAccessKey: 'local',
  };
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials, maxAttempts: 3 });
  const doc = createDocumentClient(client);
  const created: string[] = [];
  const result: TestDynamo = {
    client,
    doc,
    endpoint,
    credentials,
    tables: tableNames((table) => table.localName),
    async createTables() {
      if (tables === 'run' && shared) throw new Error("The run's tables are shared: ask for tables of your own");
      const suffix = randomUUID().slice(0, 8);
      const names = tableNames((table) => `${table.localName}-${suffix}`);
      const byId = new Map<string, string>(
        Object.entries(TABLES).map(([key, table]) => [table.id, names[key as keyof typeof names]]),
      );
      await ensureTables(client, (table) => byId.get(table.id) as string);
      created.push(...Object.values(names));
      result.tables = names;
      return names;
    },
    async close() {
      // A file's own database outlives the file in the shared instance: free the memory its
      // tables hold (nothing writes to that database any more).
      if (shared && tables === 'own') {
        for (const TableName of [...Object.values(tableNames((table) => table.localName)), ...created]) {
          await client.send(new DeleteTableCommand({ TableName })).catch(() => {});
        }
      }
      client.destroy();
      await own?.close();
    },
  };
  if (tables === 'run' && shared) await runTablesCreated(client);
  else await ensureTables(client);
  return result;
};

/**
 * The hooks of a test file that uses DynamoDB Local: the answer is filled in before the file's
 * first test and closed after its last. With `freshTablesPerTest` (own tables only) every test
 * starts on empty tables.
 */
export const useTestDynamo = (options: TestDynamoOptions & { freshTablesPerTest?: boolean } = {}): TestDynamo => {
  const dynamo = {} as TestDynamo;
  beforeAll(async () => {
    Object.assign(dynamo, await startTestDynamo(options));
  });
  afterAll(async () => {
    await dynamo.close?.();
  });
  if (options.freshTablesPerTest) {
    beforeEach(async () => {
      dynamo.tables = await dynamo.createTables();
    });
  }
  return dynamo;
};
