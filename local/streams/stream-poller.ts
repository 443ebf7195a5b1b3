import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { lambdaContext } from '../lambda-context.js';
import type { CheckpointStore } from './checkpoints.js';
import { lambdaRecord } from './records.js';

/** What the function behind a stream answers: a partial batch response, or nothing (all done). */
export type StreamHandler = (
  event: DynamoDBStreamEvent,
  context: Context,
) => Promise<DynamoDBBatchResponse | undefined>;

export interface StreamPollerOptions {
  dynamo: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  handler: StreamHandler;
  checkpoints: CheckpointStore;
  functionName: string;
  /** The function's timeout: a longer invocation fails its batch. */
  timeoutMs: number;
  /** Records per invocation (Lambda's batch size). */
  batchSize?: number;
  /** Pause between polls of a shard that had nothing new. */
  pollMs?: number;
  /** Pause before a failed batch is handed over again. */
  retryDelayMs?: number;
  log?: (line: string) => void;
}

class InvocationTimeout extends Error {}

/**
 * Lambda's DynamoDB event source mapping for one table, against DynamoDB Local's stream: reads
 * each shard in order (a parent before its children), hands the records to the function in
 * batches, and checkpoints the last record of a batch that succeeded. A partial batch response
 * checkpoints the records before the first failure and hands the rest over again after a pause;
 * an error or a timeout does so for the whole batch. Failures are retried until they succeed,
 * as the deployed mapping does until its retry limit (after which it sends the batch to its
 * on-failure queue: not modelled here, a failing record blocks its shard and says so).
 */
export class StreamPoller {
  private closed = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly iterators = new Map<string, string>();
  private readonly finished = new Set<string>();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: StreamPollerOptions) {}

  start(): void {
    this.running ??= this.loop().catch((error) => {
      this.options.log?.(`stream ${this.options.tableName}: stopped (${(error as Error).message})`);
    });
  }

  /** Resolves once every record written so far has been handed over with success. */
  async caughtUp(): Promise<void> {
    this.wake?.();
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.running;
  }

  private async pause(ms: number): Promise<void> {
    await Promise.race([
      sleep(ms),
      new Promise<void>((resolve) => {
        this.wake = resolve;
      }),
    ]);
    this.wake = undefined;
  }

  private async streamArn(): Promise<string | undefined> {
    const { Table } = await this.options.dynamo.send(new DescribeTableCommand({ TableName: this.options.tableName }));
    return Table?.LatestStreamArn;
  }

  private async loop(): Promise<void> {
    const { pollMs = 200, log = () => {} } = this.options;
    let streamArn: string | undefined;
    while (!this.closed) {
      let progressed = false;
      try {
        streamArn ??= await this.streamArn();
        if (streamArn) {
          for (const shard of await this.shardsInOrder(streamArn)) {
            if (this.closed) break;
            progressed = (await this.pollShard(streamArn, shard)) || progressed;
          }
        }
      } catch (error) {
        const name = (error as Error).name;
        // A stream replaced (the table re-created): read the new one from its start.
        if (name === 'ResourceNotFoundException') streamArn = undefined;
        // DynamoDB Local answers this for a shard with no record yet: nothing to say.
        if (name !== 'TrimmedDataAccessException')
          log(`stream ${this.options.tableName}: ${name}: ${(error as Error).message}`);
      }
      if (!progressed) {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
        await this.pause(pollMs);
      }
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** The shards not yet read to their end, every parent before its children. */
  private async shardsInOrder(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.options.streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    const known = new Set(shards.map((shard) => shard.ShardId));
    return shards.filter(
      (shard) =>
        !this.finished.has(`${streamArn}/${shard.ShardId}`) &&
        (!shard.ParentShardId ||
          !known.has(shard.ParentShardId) ||
          this.finished.has(`${streamArn}/${shard.ParentShardId}`)),
    );
  }

  /** One GetRecords on a shard and, if it answered records, one invocation. True when records were handled. */
  private async pollShard(streamArn: string, shard: Shard): Promise<boolean> {
    const { streams, checkpoints, batchSize = 100, retryDelayMs = 1000, log = () => {} } = this.options;
    const shardId = shard.ShardId as string;
    const key = `${streamArn}/${shardId}`;
    let iterator = this.iterators.get(key);
    if (!iterator) {
      const after = checkpoints.get(streamArn, shardId);
      const output = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(after
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      iterator = output.ShardIterator;
      if (!iterator) return false;
    }
    let output: GetRecordsCommandOutput;
    try {
      output = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }));
    } catch (error) {
      // An expired or trimmed iterator: start again from the checkpoint.
      this.iterators.delete(key);
      throw error;
    }
    const records = (output.Records ?? []).map((record) => lambdaRecord(record, streamArn));
    if (records.length === 0) {
      if (output.NextShardIterator) this.iterators.set(key, output.NextShardIterator);
      else {
        this.iterators.delete(key);
        this.finished.add(key); // a closed shard read to its end: its children come next
      }
      return false;
    }

    const failedAt = await this.invoke(records);
    const done = failedAt === undefined ? records : records.slice(0, failedAt);
    const last = done.at(-1)?.dynamodb?.SequenceNumber;
    if (last) await checkpoints.set(streamArn, shardId, last);
    if (failedAt === undefined) {
      if (output.NextShardIterator) this.iterators.set(key, output.NextShardIterator);
      else {
        this.iterators.delete(key);
        this.finished.add(key);
      }
      return true;
    }
    // Hand the rest over again, from the checkpoint, after a pause.
    this.iterators.delete(key);
    log(
      `stream ${this.options.tableName}: ${records.length - failedAt} of ${records.length} records failed; retrying in ${retryDelayMs} ms`,
    );
    await this.pause(retryDelayMs);
    return true;
  }

  /** Invokes the function with one batch; answers the index of the first failed record, if any. */
  private async invoke(records: DynamoDBRecord[]): Promise<number | undefined> {
    const { handler, functionName, timeoutMs, log = () => {} } = this.options;
    const context = lambdaContext({ functionName, timeoutMs });
    let timer: NodeJS.Timeout | undefined;
    try {
      const response = await Promise.race([
        handler({ Records: records }, context),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new InvocationTimeout(`timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      const failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      if (failed.size === 0) return undefined;
      const index = records.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
      // An identifier that names no record of the batch fails the whole batch, as in Lambda.
      return Math.max(index, 0);
    } catch (error) {
      log(`stream ${this.options.tableName}: ${functionName} failed: ${(error as Error).message}`);
      return 0;
    } finally {
      clearTimeout(timer);
    }
  }
}
