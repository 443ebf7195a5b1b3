import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  paginateListTables,
  ResourceInUseException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { type IndexDefinition, TABLE_LIST, type TableDefinition } from '#service/tables.js';
import { type AwsCredential, newAwsCredential } from './aws-credential.js';
import { DataDirLockedError } from './data-dir.js';
import { LEGACY_SHARED_DB_FILE, moveDatabase } from './dynamo-files.js';
import { DbPathInUseError, dbFileOf, startDynamoDbLocal, waitUntilAnswering } from './dynamodb-local.js';
import { LOCAL_REGION } from './lambda-context.js';

export interface EmbeddedDynamo {
  endpoint: string;
  /** What every client of this store signs with: the access key picks the database. */
  credentials: AwsCredential;
  /** How long DynamoDB Local took to answer its first request (0 when joining a running one). */
  startMs: number;
  close(): Promise<void>;
}

/**
 * A running DynamoDB Local (e.g. the Jest global setup's) that in-memory stores join instead
 * of starting a JVM each: a second or more saved per store, and a warm JVM. DynamoDB Local keeps
 * one database per access key and region, so each store's key keeps its tables apart.
 */
export const SHARED_DYNAMODB_LOCAL_ENV = 'DYNAMODB_LOCAL_SHARED_ENDPOINT';

/** An in-memory store inside a running DynamoDB Local: closing it drops its tables. */
const joinShared = async (endpoint: string, credentials: AwsCredential): Promise<EmbeddedDynamo> => {
  await waitUntilAnswering(endpoint);
  return {
    endpoint,
    credentials,
    startMs: 0,
    async close() {
      const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials });
      try {
        for await (const page of paginateListTables({ client }, {})) {
          for (const TableName of page.TableNames ?? []) await client.send(new DeleteTableCommand({ TableName }));
        }
      } finally {
        client.destroy();
      }
    },
  };
};

/**
 * Starts AWS's DynamoDB Local (local/dynamodb-local.ts) on 127.0.0.1, its database the one of
 * `credentials`. With `path` the data persists in that folder (one SQLite file per access key;
 * the tables an older twin kept in its shared file, or under `formerKey`, move to this key's);
 * without it the store lives in memory and vanishes on close (in the shared instance named by
 * DYNAMODB_LOCAL_SHARED_ENDPOINT if set).
 *
 * Without Java this fails with the instruction to install it rather than falling back to
 * dynalite: dynalite measures key sizes in UTF-16 units and so accepts keys DynamoDB refuses,
 * and its files are not DynamoDB Local's, so a silent switch would also hide the stored data.
 */
export const startEmbeddedDynamo = async ({
  path,
  port = 0,
  credentials = newAwsCredential(),
  formerKey,
  beforeStart,
}: {
  path?: string;
  port?: number;
  /** Default: a new one (an in-memory store whose caller signs with `credentials` of the answer). */
  credentials?: AwsCredential;
  /** The key the data directory had before (its tables move to `credentials`' key). */
  formerKey?: string | undefined;
  /** Runs once the folder and port are free, before the JVM starts (a start that cannot run writes nothing). */
  beforeStart?: () => Promise<void>;
} = {}): Promise<EmbeddedDynamo> => {
  const shared = process.env[SHARED_DYNAMODB_LOCAL_ENV];
  if (!path && shared) return joinShared(shared, credentials);
  const database = { accessKeyId: credentials.accessKeyId, region: LOCAL_REGION };
  try {
    const local = await startDynamoDbLocal({
      ...(path ? { dbPath: path } : {}),
      ...(port ? { port } : {}),
      beforeStart: async () => {
        await beforeStart?.();
        if (!path) return;
        if (formerKey) await moveDatabase(path, dbFileOf(formerKey, LOCAL_REGION), database);
        await moveDatabase(path, LEGACY_SHARED_DB_FILE, database);
      },
    });
    return { endpoint: local.endpoint, credentials, startMs: local.startMs, close: local.close };
  } catch (error) {
    if (error instanceof DbPathInUseError) throw new DataDirLockedError(error.dbPath);
    throw error;
  }
};

const keySchema = (partitionKey: string, sortKey?: string) =>
  [partitionKey, ...(sortKey ? [sortKey] : [])].map((name, index) => ({
    AttributeName: name,
    KeyType: index === 0 ? ('HASH' as const) : ('RANGE' as const),
  }));

const attributeDefinitions = (table: TableDefinition) => {
  const names = new Set([
    table.partitionKey,
    table.sortKey,
    ...(table.indexes ?? []).flatMap((index) => [index.partitionKey, index.sortKey]),
  ]);
  return [...names]
    .filter((name) => name !== undefined)
    .map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));
};

const indexSpec = (index: IndexDefinition) => ({
  IndexName: index.name,
  KeySchema: keySchema(index.partitionKey, index.sortKey),
  Projection: { ProjectionType: index.projection },
});

/**
 * Creates the service's tables (under their local names, or `names` given) if they do not
 * exist, with their indexes and change streams. A table kept in a data directory from before an
 * index or a stream existed gets it added, as a deployment of the stack would.
 */
export const ensureTables = async (
  client: DynamoDBClient,
  nameOf: (table: TableDefinition) => string = (table) => table.localName,
): Promise<void> => {
  for (const table of TABLE_LIST) {
    const TableName = nameOf(table);
    const StreamSpecification = table.stream ? { StreamEnabled: true, StreamViewType: table.stream } : undefined;
    try {
      await client.send(
        new CreateTableCommand({
          TableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions(table),
          KeySchema: keySchema(table.partitionKey, table.sortKey),
          ...(table.indexes?.length ? { GlobalSecondaryIndexes: table.indexes.map(indexSpec) } : {}),
          ...(StreamSpecification ? { StreamSpecification } : {}),
        }),
      );
      continue;
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
    const { Table: existing } = await client.send(new DescribeTableCommand({ TableName }));
    if (StreamSpecification && !existing?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName, StreamSpecification }));
    }
    const present = new Set((existing?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    for (const index of table.indexes ?? []) {
      if (present.has(index.name)) continue;
      await client.send(
        new UpdateTableCommand({
          TableName,
          AttributeDefinitions: attributeDefinitions(table),
          GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }],
        }),
      );
    }
  }
};
