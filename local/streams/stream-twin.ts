import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { type CheckpointStore, FileCheckpoints, MemoryCheckpoints } from './checkpoints.js';
import {
  type StreamBatchFailure,
  type StreamHandler,
  StreamPoller,
  type StreamPollerOptions,
} from './stream-poller.js';

/**
 * The local twin of DynamoDB Streams plus Lambda's event source mappings: one poller per table
 * with a stream, all invoking the same function, sharing one checkpoint store (a file of the
 * data directory, or memory).
 */
export interface StreamTwinOptions {
  dynamo: DynamoDBClient;
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  tables: readonly string[];
  /** Each table's event source filters, by table name (StreamPollerOptions). */
  filters?: Readonly<Record<string, StreamPollerOptions['filters']>>;
  handler: StreamHandler;
  functionName: string;
  timeoutMs: number;
  memoryMb?: number;
  /** The checkpoints' file; none keeps them in memory. */
  checkpointFile?: string;
  batchSize?: number;
  pollMs?: number;
  retryDelayMs?: number;
  /** The event source mapping's error handling: retries, halving, where a batch given up on goes. */
  maxRetryAttempts?: number;
  bisectOnError?: boolean;
  onFailure?: (failure: StreamBatchFailure) => Promise<void>;
  /** The API's requests, let go first (StreamPollerOptions). */
  yieldTo?: StreamPollerOptions['yieldTo'];
  maxYieldMs?: number;
  log?: (line: string) => void;
}

export interface StreamTwin {
  /** Resolves once every record written so far has been handed to the function with success. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

export const startStreamTwin = async ({
  dynamo,
  endpoint,
  region,
  credentials,
  tables,
  filters,
  checkpointFile,
  ...options
}: StreamTwinOptions): Promise<StreamTwin> => {
  const streams = new DynamoDBStreamsClient({ endpoint, region, credentials });
  const checkpoints: CheckpointStore = checkpointFile
    ? await FileCheckpoints.open(checkpointFile)
    : new MemoryCheckpoints();
  const pollers = tables.map(
    (tableName) =>
      new StreamPoller({ ...options, dynamo, streams, tableName, checkpoints, filters: filters?.[tableName] }),
  );
  for (const poller of pollers) poller.start();
  return {
    caughtUp: async () => {
      await Promise.all(pollers.map((poller) => poller.caughtUp()));
    },
    close: async () => {
      await Promise.all(pollers.map((poller) => poller.close()));
      streams.destroy();
    },
  };
};
