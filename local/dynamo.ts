import type { AddressInfo } from 'node:net';
import { CreateTableCommand, type DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLE_LIST, type TableDefinition } from '#shared/deployment/tables.js';

export interface EmbeddedDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Starts dynalite, an in-process DynamoDB implementation, on 127.0.0.1. With `path` the data
 * persists on disk (LevelDB); without it the store lives in memory and vanishes on close.
 */
export const startEmbeddedDynamo = async ({
  path,
  port = 0,
}: {
  path?: string;
  port?: number;
} = {}): Promise<EmbeddedDynamo> => {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(path ? { path } : {}) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: boundPort } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${boundPort}`,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error?: Error) => (error ? reject(error) : resolve()))),
  };
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
