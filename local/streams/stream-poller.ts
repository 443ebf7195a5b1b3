import { randomUUID } from 'node:crypto';
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
import type { StreamFilter } from '#shared/platform/route.js';
import type { InFlight } from '../in-flight.js';
import { lambdaContext } from '../lambda-context.js';
import type { CheckpointStore } from './checkpoints.js';
import { passesFilters } from './event-filter.js';
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
  /** The memory its context reports (Lambda's memoryLimitInMB). */
  memoryMb?: number;
  /** The event source's filters: only records one of them matches invoke the function. */
  filters?: readonly StreamFilter[] | undefined;
  /** Records per invocation (Lambda's batch size). */
  batchSize?: number;
  /** Pause between polls of a shard that had nothing new. */
  pollMs?: number;
  /** Pause before a failed batch is handed over again. */
  retryDelayMs?: number;
  /** Retries of a failing batch before it is given up on (none: retried until it succeeds). */
  maxRetryAttempts?: number;
  /** A batch the function fails as a whole is halved before it is retried. */
  bisectOnError?: boolean;
  /**
   * Requests it lets go first (local/in-flight.ts): before each round of polls it waits until
   * none is in flight, for `maxYieldMs` (default 5 s) at most.
   */
  yieldTo?: Pick<InFlight, 'quiet'>;
  maxYieldMs?: number;
  /** Receives the description of a batch given up on (the on-failure destination's message). */
  onFailure?: (failure: StreamBatchFailure) => Promise<void>;
  log?: (line: string) => void;
}

/** What the on-failure destination learns of a batch given up on: where it is, not its records. */
export interface StreamBatchFailure {
  functionName: string;
  /** Invocations with these records, the last one included. */
  attempts: number;
  streamArn: string;
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  approximateArrivalOfFirstRecord: string | undefined;
  approximateArrivalOfLastRecord: string | undefined;
  batchSize: number;
}

/** The message Lambda sends to an SQS on-failure destination once a stream batch's retries are exhausted. */
export const onFailureMessage = (failure: StreamBatchFailure, region: string, accountId: string) => ({
  requestContext: {
    requestId: randomUUID(),
    functionArn: `arn:aws:lambda:${region}:${accountId}:function:${failure.functionName}`,
    condition: 'RetryAttemptsExhausted',
    approximateInvokeCount: failure.attempts,
  },
  responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
  version: '1.0',
  timestamp: new Date().toISOString(),
  DDBStreamBatchInfo: {
    shardId: failure.shardId,
    startSequenceNumber: failure.startSequenceNumber,
    endSequenceNumber: failure.endSequenceNumber,
    approximateArrivalOfFirstRecord: failure.approximateArrivalOfFirstRecord,
    approximateArrivalOfLastRecord: failure.approximateArrivalOfLastRecord,
    batchSize: failure.batchSize,
    streamArn: failure.streamArn,
  },
});

/** How an invocation went: every record done, or the index of the first record to hand over again. */
type Outcome = { failedAt: undefined } | { failedAt: number; wholeBatch: boolean };

/** A shard's batch that keeps failing: from which record, how often, and how many records to hand over. */
interface Failing {
  first: string;
  attempts: number;
  limit: number;
}

class InvocationTimeout extends Error {}

/** How long a round of polls waits for the API's requests at most: the lag of events under steady traffic. */
export const DEFAULT_MAX_YIELD_MS = 5_000;

const sequenceOf = (record: DynamoDBRecord): string => record.dynamodb?.SequenceNumber ?? '';
const arrivalOf = (record: DynamoDBRecord | undefined): string | undefined => {
  const seconds = record?.dynamodb?.ApproximateCreationDateTime;
  return seconds === undefined ? undefined : new Date(seconds * 1000).toISOString();
};

/**
 * Lambda's DynamoDB event source mapping for one table, against DynamoDB Local's stream: reads
 * each shard in order (a parent before its children), hands the records to the function in
 * batches, and checkpoints the last record of a batch that succeeded. A partial batch response
 * checkpoints the records before the first failure and hands the rest over again after a pause;
 * an error or a timeout does so for the whole batch, halved first with `bisectOnError`. After
 * `maxRetryAttempts` retries without progress the batch is described to `onFailure` and the
 * shard moves on past it, as the deployed mapping does with its on-failure destination.
 */
export class StreamPoller {
  private closed = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly iterators = new Map<string, string>();
  private readonly finished = new Set<string>();
  private readonly failing = new Map<string, Failing>();
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
    const { pollMs = 200, log = () => {}, yieldTo, maxYieldMs = DEFAULT_MAX_YIELD_MS } = this.options;
    let streamArn: string | undefined;
    while (!this.closed) {
      let progressed = false;
      await yieldTo?.quiet(maxYieldMs);
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
    const {
      streams,
      checkpoints,
      batchSize = 100,
      retryDelayMs = 1000,
      maxRetryAttempts,
      bisectOnError = false,
      log = () => {},
    } = this.options;
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
      this.advance(key, output.NextShardIterator);
      return false;
    }

    // A batch that failed before is handed over again from its first record, halved if it was.
    let state = this.failing.get(key);
    if (state && state.first !== sequenceOf(records[0] as DynamoDBRecord)) state = undefined;
    const batch = state ? records.slice(0, state.limit) : records;
    const outcome = await this.invoke(batch);
    const done = outcome.failedAt === undefined ? batch : batch.slice(0, outcome.failedAt);
    const last = done.at(-1);
    if (last) await checkpoints.set(streamArn, shardId, sequenceOf(last));
    if (outcome.failedAt === undefined) {
      this.failing.delete(key);
      // A halved batch leaves records behind: they are read again from the checkpoint.
      if (batch.length < records.length) this.iterators.delete(key);
      else this.advance(key, output.NextShardIterator);
      return true;
    }
    // Hand the rest over again, from the checkpoint, after a pause; or give up on it.
    this.iterators.delete(key);
    const failed = batch.slice(outcome.failedAt);
    const first = sequenceOf(failed[0] as DynamoDBRecord);
    const attempts = (state?.first === first ? state.attempts : 0) + 1;
    if (maxRetryAttempts !== undefined && attempts > maxRetryAttempts) {
      this.failing.delete(key);
      await this.giveUp(streamArn, shardId, failed, attempts);
      return true;
    }
    // An error retries the same records (halved first, if it may); a partial failure, a full batch from the first failed one.
    const halve = outcome.wholeBatch && bisectOnError && failed.length > 1;
    const limit = halve ? Math.ceil(failed.length / 2) : outcome.wholeBatch ? failed.length : batchSize;
    this.failing.set(key, { first, attempts, limit });
    log(
      `stream ${this.options.tableName}: ${failed.length} of ${batch.length} records failed; retrying${halve ? ' the first half' : ''} in ${retryDelayMs} ms`,
    );
    await this.pause(retryDelayMs);
    return true;
  }

  /** Moves a shard's reading on; a closed shard read to its end is finished (its children come next). */
  private advance(key: string, next: string | undefined): void {
    if (next) {
      this.iterators.set(key, next);
      return;
    }
    this.iterators.delete(key);
    this.finished.add(key);
  }

  /** Describes the failed records to the on-failure destination and moves the shard past them. */
  private async giveUp(streamArn: string, shardId: string, failed: DynamoDBRecord[], attempts: number): Promise<void> {
    const { checkpoints, functionName, onFailure, log = () => {} } = this.options;
    const failure: StreamBatchFailure = {
      functionName,
      attempts,
      streamArn,
      shardId,
      startSequenceNumber: sequenceOf(failed[0] as DynamoDBRecord),
      endSequenceNumber: sequenceOf(failed.at(-1) as DynamoDBRecord),
      approximateArrivalOfFirstRecord: arrivalOf(failed[0]),
      approximateArrivalOfLastRecord: arrivalOf(failed.at(-1)),
      batchSize: failed.length,
    };
    // Sent before the checkpoint moves: a crash in between sends it again rather than never.
    await onFailure?.(failure);
    await checkpoints.set(streamArn, shardId, failure.endSequenceNumber);
    log(
      `stream ${this.options.tableName}: ${failed.length} records still failed after ${attempts} attempts; ${onFailure ? 'described to the on-failure queue' : 'skipped'}`,
    );
  }

  /** Invokes the function with one batch; answers where it failed, if it did. */
  private async invoke(records: DynamoDBRecord[]): Promise<Outcome> {
    const { handler, functionName, timeoutMs, memoryMb, filters, log = () => {} } = this.options;
    const passing = records.filter((record) => passesFilters(record, filters));
    if (passing.length === 0) return { failedAt: undefined };
    const context = lambdaContext({ functionName, timeoutMs, memoryLimitInMB: memoryMb });
    let timer: NodeJS.Timeout | undefined;
    try {
      const response = await Promise.race([
        handler({ Records: passing }, context),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new InvocationTimeout(`timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      const failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      if (failed.size === 0) return { failedAt: undefined };
      const index = records.findIndex((record) => failed.has(sequenceOf(record)));
      // An identifier that names no record of the batch fails the whole batch, as in Lambda.
      return { failedAt: Math.max(index, 0), wholeBatch: false };
    } catch (error) {
      log(`stream ${this.options.tableName}: ${functionName} failed: ${(error as Error).message}`);
      return { failedAt: 0, wholeBatch: true };
    } finally {
      clearTimeout(timer);
    }
  }
}
