import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** DynamoDB operations that accept ReturnConsumedCapacity. */
const CAPACITY_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
  'BatchExecuteStatement',
]);

// The service's PartiQL batches (a job page's stamps and deletes, an import page's changes) hold only INSERT, UPDATE and DELETE statements.
const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'BatchExecuteStatement',
]);
const READ_OPERATIONS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

export interface CallRecord {
  service: 'dynamodb' | 'sqs';
  operation: string;
  /** Table (DynamoDB) or queue URL (SQS); for batch calls the first table named. */
  target: string;
  /** Items a batch call carries (1 for single-item calls). */
  items: number;
  capacity: number;
  /** SDK attempts (more than 1 when it retried). */
  attempts: number;
  failed: boolean;
}

export interface CallSummary {
  calls: number;
  reads: number;
  writes: number;
  /** Items written: single writes count 1, BatchWriteItem its requests, BatchExecuteStatement its statements (applied or refused: each costs a write unit). */
  itemsWritten: number;
  /** Items requested by reads: GetItem 1, BatchGetItem its keys. */
  keysRead: number;
  capacity: number;
  sqs: number;
  retries: number;
  failed: number;
  byOperation: Record<string, number>;
  /** GetItem calls on the credentials table. */
  credentialReads: number;
}

/**
 * Counts every call a client sends. The middleware sits in the serialize step, ahead of the
 * serializer, so it sees the low-level (marshalled) input of DocumentClient commands too,
 * can ask DynamoDB for its consumed capacity, and counts one call per command whatever the
 * SDK's retries (those are read from $metadata.attempts).
 */
export class CallCounter {
  records: CallRecord[] = [];

  /**
   * `capacity: false` leaves ReturnConsumedCapacity alone, for CPU measurements: asking for it
   * makes every response larger to parse than the service's own.
   */
  constructor(
    private readonly credentialsTable?: string,
    private readonly options: { capacity?: boolean } = {},
  ) {}

  attachDynamo(client: DynamoDBClient | DynamoDBDocumentClient): this {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as Record<string, unknown>;
        if (
          this.options.capacity !== false &&
          CAPACITY_OPERATIONS.has(operation) &&
          input.ReturnConsumedCapacity === undefined
        ) {
          input.ReturnConsumedCapacity = 'TOTAL';
        }
        const record: CallRecord = {
          service: 'dynamodb',
          operation,
          target: targetOf(input),
          items: itemsOf(operation, input),
          capacity: 0,
          attempts: 1,
          failed: false,
        };
        this.records.push(record);
        try {
          const result = await next(args);
          const output = result.output as { ConsumedCapacity?: unknown; $metadata?: { attempts?: number } };
          record.capacity = capacityOf(output.ConsumedCapacity);
          record.attempts = output.$metadata?.attempts ?? 1;
          return result;
        } catch (error) {
          record.failed = true;
          record.attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
          throw error;
        }
      },
      { step: 'serialize', priority: 'high', name: 'benchCallCounter', override: true },
    );
    return this;
  }

  attachSqs(client: SQSClient): this {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { QueueUrl?: string; Entries?: unknown[] };
        const record: CallRecord = {
          service: 'sqs',
          operation: String(context.commandName ?? '').replace(/Command$/, ''),
          target: input.QueueUrl ?? '',
          items: input.Entries?.length ?? 1,
          capacity: 0,
          attempts: 1,
          failed: false,
        };
        this.records.push(record);
        try {
          const result = await next(args);
          record.attempts = (result.output as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
          return result;
        } catch (error) {
          record.failed = true;
          throw error;
        }
      },
      { step: 'serialize', priority: 'high', name: 'benchCallCounter', override: true },
    );
    return this;
  }

  /** Index to pass to summary() for the calls made from now on. */
  mark(): number {
    return this.records.length;
  }

  summary(from = 0, to = this.records.length): CallSummary {
    const summary: CallSummary = {
      calls: 0,
      reads: 0,
      writes: 0,
      itemsWritten: 0,
      keysRead: 0,
      capacity: 0,
      sqs: 0,
      retries: 0,
      failed: 0,
      byOperation: {},
      credentialReads: 0,
    };
    for (const record of this.records.slice(from, to)) {
      summary.byOperation[record.operation] = (summary.byOperation[record.operation] ?? 0) + 1;
      summary.retries += record.attempts - 1;
      if (record.failed) summary.failed += 1;
      if (record.service === 'sqs') {
        summary.sqs += 1;
        continue;
      }
      summary.calls += 1;
      summary.capacity += record.capacity;
      if (WRITE_OPERATIONS.has(record.operation)) {
        summary.writes += 1;
        summary.itemsWritten += record.items;
      }
      if (READ_OPERATIONS.has(record.operation)) {
        summary.reads += 1;
        summary.keysRead += record.items;
      }
      if (record.operation === 'GetItem' && this.credentialsTable && record.target === this.credentialsTable) {
        summary.credentialReads += 1;
      }
    }
    return summary;
  }
}

const targetOf = (input: Record<string, unknown>): string => {
  if (typeof input.TableName === 'string') return input.TableName;
  const requestItems = input.RequestItems as Record<string, unknown> | undefined;
  return requestItems ? (Object.keys(requestItems)[0] ?? '') : '';
};

const itemsOf = (operation: string, input: Record<string, unknown>): number => {
  const requestItems = input.RequestItems as Record<string, { Keys?: unknown[] } | unknown[]> | undefined;
  if (operation === 'BatchGetItem' && requestItems) {
    return Object.values(requestItems).reduce((n, table) => n + ((table as { Keys?: unknown[] }).Keys?.length ?? 0), 0);
  }
  if (operation === 'BatchWriteItem' && requestItems) {
    return Object.values(requestItems).reduce((n, table) => n + ((table as unknown[]).length ?? 0), 0);
  }
  if (operation === 'BatchExecuteStatement') return (input.Statements as unknown[] | undefined)?.length ?? 0;
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    return (input.TransactItems as unknown[] | undefined)?.length ?? 0;
  }
  return 1;
};

const capacityOf = (consumed: unknown): number => {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((n: number, c: { CapacityUnits?: number }) => n + (c.CapacityUnits ?? 0), 0);
};
