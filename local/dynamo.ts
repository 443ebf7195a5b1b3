import { CreateTableCommand, type DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { TABLE_LIST, type TableDefinition } from '#shared/deployment/tables.js';
import { DataDirLockedError } from './data-dir.js';
import { DbPathInUseError, startDynamoDbLocal } from './dynamodb-local.js';

export interface EmbeddedDynamo {
  endpoint: string;
  /** How long DynamoDB Local took to answer its first request. */
  startMs: number;
  close(): Promise<void>;
}

/**
 * Starts AWS's DynamoDB Local (local/dynamodb-local.ts) on 127.0.0.1. With `path` the data
 * persists in that folder (one SQLite file); without it the store lives in memory and
 * vanishes on close.
 *
 * Without Java this fails with the instruction to install it rather than falling back to
 * dynalite: dynalite measures key sizes in UTF-16 units and so accepts keys DynamoDB refuses,
 * and its files are not DynamoDB Local's, so a silent switch would also hide the stored data.
 */
export const startEmbeddedDynamo = async ({
  path,
  port = 0,
}: {
  path?: string;
  port?: number;
} = {}): Promise<EmbeddedDynamo> => {
  try {
    const local = await startDynamoDbLocal({ ...(path ? { dbPath: path } : {}), ...(port ? { port } : {}) });
    return { endpoint: local.endpoint, startMs: local.startMs, close: local.close };
  } catch (error) {
    if (error instanceof DbPathInUseError) throw new DataDirLockedError(error.dbPath);
    throw error;
  }
};

/** Creates the service's tables (under their local names, or `names` given) if they do not exist. */
export const ensureTables = async (
  client: DynamoDBClient,
  nameOf: (table: TableDefinition) => string = (table) => table.localName,
): Promise<void> => {
  for (const table of TABLE_LIST) {
    const keys = [table.partitionKey, ...(table.sortKey ? [table.sortKey] : [])];
    try {
      await client.send(
        new CreateTableCommand({
          TableName: nameOf(table),
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          KeySchema: keys.map((name, index) => ({ AttributeName: name, KeyType: index === 0 ? 'HASH' : 'RANGE' })),
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
};
