import { currentFunctionName } from './invoke-store.js';

/**
 * Every AWS call a function makes in the twin, as IAM sees it: the action and the resource
 * (table, index, queue, bus). The stack grants each function exactly what its spec says
 * (service/functions.ts, the routes); DynamoDB Local and the SQS and EventBridge twins check no
 * permission, so a call the grants miss would only show on AWS, as AccessDenied. A test records
 * the calls of a workload through the twin and checks each against the synthesized policies.
 */
export interface AwsCall {
  /** The function, by its name in the stack (`setConfig`, `ChangePublisher`, ...). */
  function: string;
  /** The IAM action, e.g. `dynamodb:Query`, `sqs:SendMessage`, `events:PutEvents`. */
  action: string;
  table?: string;
  index?: string;
  /** The queue's name (the last part of its URL). */
  queue?: string;
  bus?: string;
  /** The secret's id as the function names it. */
  secret?: string;
  /** The key of an object of the files bucket (a presigned URL's too: signing it takes the action). */
  object?: string;
}

interface MiddlewareClient {
  middlewareStack: { add(middleware: unknown, options: { step: 'initialize'; name: string }): void };
}

type Input = Record<string, unknown>;

const SERVICE_PREFIX: Record<string, string> = {
  DynamoDBClient: 'dynamodb',
  SQSClient: 'sqs',
  EventBridgeClient: 'events',
  SecretsManagerClient: 'secretsmanager',
  S3Client: 's3',
};

/** The IAM action of an S3 call: the parts of a multipart upload are PutObject's. */
const S3_ACTIONS: Record<string, string> = {
  CreateMultipartUpload: 'PutObject',
  UploadPart: 'PutObject',
  CompleteMultipartUpload: 'PutObject',
  ListParts: 'ListMultipartUploadParts',
};

/** The tables a DynamoDB call touches: its TableName, a batch's RequestItems, a transaction's items, a PartiQL statement's. */
const tablesOf = (input: Input): string[] => {
  if (typeof input.TableName === 'string') return [input.TableName];
  if (input.RequestItems && typeof input.RequestItems === 'object') return Object.keys(input.RequestItems);
  const items = (input.TransactItems ?? input.Statements) as Input[] | undefined;
  return [
    ...new Set(
      (items ?? []).flatMap((item) => {
        if (typeof item.Statement === 'string') return [/"([^"]+)"/.exec(item.Statement)?.[1] ?? '?'];
        return Object.values(item).map((part) => String((part as Input).TableName));
      }),
    ),
  ];
};

/** The calls of one AWS request (a transaction is one action per kind of item, as IAM evaluates it). */
const callsOf = (fn: string, client: string, command: string, input: Input): AwsCall[] => {
  const service = SERVICE_PREFIX[client] ?? client;
  const operation = command.replace(/Command$/, '');
  if (service === 'sqs')
    return [{ function: fn, action: `sqs:${operation}`, queue: String(input.QueueUrl).split('/').pop() }];
  if (service === 's3') {
    return [{ function: fn, action: `s3:${S3_ACTIONS[operation] ?? operation}`, object: String(input.Key) }];
  }
  if (service === 'secretsmanager') {
    return [{ function: fn, action: `secretsmanager:${operation}`, secret: String(input.SecretId) }];
  }
  if (service === 'events') {
    const buses = new Set(((input.Entries ?? []) as Input[]).map((entry) => String(entry.EventBusName ?? 'default')));
    return [...buses].map((bus) => ({ function: fn, action: `events:${operation}`, bus }));
  }
  if (operation === 'BatchExecuteStatement') {
    // IAM checks each statement by its kind: PartiQLUpdate, PartiQLInsert, ...
    return ((input.Statements ?? []) as Input[]).map((item) => {
      const statement = String(item.Statement);
      const kind = /^\s*(\w+)/.exec(statement)?.[1]?.toLowerCase() ?? '';
      const verb = { update: 'Update', insert: 'Insert', delete: 'Delete', select: 'Select' }[kind] ?? kind;
      return { function: fn, action: `dynamodb:PartiQL${verb}`, table: /"([^"]+)"/.exec(statement)?.[1] ?? '?' };
    });
  }
  if (operation === 'TransactWriteItems') {
    return ((input.TransactItems ?? []) as Input[]).flatMap((item) =>
      Object.entries(item).map(([kind, part]) => ({
        function: fn,
        action: `dynamodb:${{ Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[kind] ?? kind}`,
        table: String((part as Input).TableName),
      })),
    );
  }
  return tablesOf(input).map((table) => ({
    function: fn,
    action: `dynamodb:${operation}`,
    table,
    ...(typeof input.IndexName === 'string' ? { index: input.IndexName } : {}),
  }));
};

const instrumented = new WeakSet<object>();
let sink: { prefix: string; onCall: (call: AwsCall) => void } | undefined;

/**
 * Records the calls made through `clients` (the functions' shared SDK clients) during a function's
 * invocation, naming the function by its twin name minus `prefix`, until `stop`. Calls outside any
 * invocation (the twin's own set-up, a test reading a table) are not a function's and are not
 * recorded. A client is instrumented once per process; the last caller's sink receives the calls.
 */
export const recordCalls = (clients: unknown[], prefix: string, onCall: (call: AwsCall) => void): { stop(): void } => {
  const own = { prefix, onCall };
  sink = own;
  for (const client of clients as MiddlewareClient[]) {
    if (instrumented.has(client)) continue;
    instrumented.add(client);
    client.middlewareStack.add(
      (next: (args: { input: Input }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) =>
        async (args: { input: Input }) => {
          const name = currentFunctionName();
          if (sink && name?.startsWith(sink.prefix)) {
            const fn = name.slice(sink.prefix.length);
            for (const call of callsOf(fn, context.clientName ?? '', context.commandName ?? '', args.input))
              sink.onCall(call);
          }
          return next(args);
        },
      { step: 'initialize', name: 'twinCallRecorder' },
    );
  }
  return {
    stop: () => {
      if (sink === own) sink = undefined;
    },
  };
};
