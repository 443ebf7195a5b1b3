import type * as z from 'zod/mini';
import type { Scope } from '#shared/api/scopes.js';

/**
 * What a function of the service may touch, in terms free of CDK. A route declares it beside its
 * schemas; the deployment description (service/) adds what every function of its kind needs, the
 * stack grants exactly this and the local twin runs the function with the same timeout and memory.
 */

/** The service's tables (service/tables.ts defines them). */
export type TableName = 'config' | 'migrations' | 'credentials' | 'history' | 'limits';

/**
 * A Lambda event filter pattern over a DynamoDB stream record (in its Lambda shape: eventName,
 * dynamodb.NewImage as attribute values...): a value list, or `{exists}` / `{prefix}` at a leaf.
 */
export type StreamFilter = { readonly [field: string]: StreamFilter | readonly (string | StreamFilterTest)[] };
export type StreamFilterTest = { readonly exists: boolean } | { readonly prefix: string };

/**
 * DynamoDB item actions a function may be given. A closed list: no Scan, no table management,
 * no wildcard (CDK's grantReadData/grantWriteData add actions no handler performs).
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem'
  /** The statements of a PartiQL BatchExecuteStatement: IAM checks each statement's kind. */
  | 'PartiQLInsert'
  | 'PartiQLUpdate'
  | 'PartiQLDelete';

/** SQS actions a function may be given to produce messages (consuming goes through the event source). */
export type QueueAction = 'SendMessage';

export type QueueName = 'migrations' | 'erasures' | 'webhooks' | 'exports' | 'imports';
/** The queues of jobs (shared/jobs/): a message names a job, and the last receive fails it. */
export type JobQueueName = Extract<QueueName, 'migrations' | 'erasures' | 'exports' | 'imports'>;

/**
 * The folders of the files bucket (shared/files/keys.ts names the keys under them): uploaded
 * import files, the rejected rows of an import, export files. A grant names its folder, so that
 * no function reaches another kind of file.
 */
export type FileFolder = 'imports' | 'importErrors' | 'exports';

/**
 * S3 object actions a function may be given on a folder of the files bucket. Signing a presigned
 * URL takes the action the URL performs (PutObject for an upload, GetObject for a download);
 * writing a file in parts takes PutObject (create, upload each part, complete) and
 * AbortMultipartUpload. No listing, no deletion: the bucket's lifecycle deletes.
 */
export type FileAction = 'GetObject' | 'PutObject' | 'AbortMultipartUpload';

/** Deployment settings a function reads from its environment (the stack sets them from CDK context). */
export type FunctionSetting =
  | 'deliveryDefaults'
  | 'credentialCache'
  | 'migrationMaxReceiveCount'
  | 'historyRetention'
  | 'erasureMaxReceiveCount'
  | 'rateLimit'
  | 'policyCache'
  | 'linksBaseUrl'
  | 'linkEvidence'
  | 'exportMaxReceiveCount'
  | 'importMaxReceiveCount'
  | 'importWriteRate';

/** Actions on the service's event bus. */
export type EventBusAction = 'PutEvents';

/** The service's secrets: the keys of the links in emails, from which config/history's cursor key is derived too (shared/links/keyring.ts). */
export type SecretName = 'linkKeys';

export interface FunctionAccess {
  /** @default 512 (service/functions.ts) */
  memoryMb?: number;
  /** @default 10 */
  timeoutSeconds?: number;
  /** Item actions per table: what the code behind the function calls, nothing more. */
  tables?: Partial<Record<TableName, readonly TableAction[]>>;
  /** Indexes the function queries, by table: Query on each named index only (table actions never reach an index). */
  indexes?: Partial<Record<TableName, readonly string[]>>;
  queues?: Partial<Record<QueueName, readonly QueueAction[]>>;
  /** Object actions per folder of the files bucket (contract 15.3). */
  files?: Partial<Record<FileFolder, readonly FileAction[]>>;
  /** Tables whose change stream invokes the function (the stack adds the event source mappings). */
  streams?: readonly TableName[];
  /**
   * Per stream, the records that invoke the function: Lambda event filter patterns (any one
   * matches), the conditions under which the function acts on a record. Without, every record.
   */
  streamFilters?: Partial<Record<TableName, readonly StreamFilter[]>>;
  eventBus?: readonly EventBusAction[];
  settings?: readonly FunctionSetting[];
  /** Secrets the function reads (GetSecretValue on each, nothing else). */
  secrets?: readonly SecretName[];
}

/**
 * What one store operation touches: its item actions per table and the indexes it queries. Each
 * store declares it per operation beside its port (e.g. shared/preferences/store-grants.ts), so a
 * function's grants follow from the operations its code calls, and a store that changes how it
 * writes changes its own declaration, no route.
 */
export type StoreAccess = Pick<FunctionAccess, 'tables' | 'indexes'>;

/** The tables and indexes of the given operations' accesses, merged (each action and index once, in order). */
export const accessOf = (...accesses: StoreAccess[]): StoreAccess => {
  const merge = <T extends string>(lists: (Partial<Record<TableName, readonly T[]>> | undefined)[]) => {
    const merged: Partial<Record<TableName, T[]>> = {};
    for (const list of lists) {
      for (const [table, items] of Object.entries(list ?? {}) as [TableName, readonly T[]][]) {
        const into = merged[table] ?? [];
        for (const item of items) if (!into.includes(item)) into.push(item);
        merged[table] = into;
      }
    }
    return merged;
  };
  const tables = merge(accesses.map((access) => access.tables));
  const indexes = merge(accesses.map((access) => access.indexes));
  return {
    ...(Object.keys(tables).length > 0 ? { tables } : {}),
    ...(Object.keys(indexes).length > 0 ? { indexes } : {}),
  };
};

/** API Gateway's HTTP API gives up on an integration after 30 s: an HTTP function gets less. */
export const MAX_HTTP_TIMEOUT_SECONDS = 29;

/**
 * One HTTP route as its function needs it at run time: the `data` it accepts, the `result.data`
 * it answers (the source of its type; built on first call, see once.ts: no function builds it),
 * its success message, and what its function may touch.
 * Its operationId names it everywhere (handler functions/<kebab id>.ts, stack function, OpenAPI
 * operation, client method). Descriptions and examples live with the tools (tools/openapi/), so
 * that no function carries documentation.
 */
export interface Route<
  Req extends z.core.$ZodType = z.core.$ZodType,
  Res extends z.core.$ZodType = z.core.$ZodType,
  Id extends string = string,
> {
  operationId: Id;
  path: string;
  request: Req;
  result: () => Res;
  message: string;
  /** The scope a credential needs to call the route (docs/api.md, Authentication). */
  scope: Scope;
  /** The route starts a job and takes an `Idempotency-Key` header (docs/api.md, Idempotency-Key). */
  idempotencyKey?: true;
  function: FunctionAccess;
}

/**
 * One public route: a page a person opens from a link in an email (docs/api.md, Links in emails).
 * Outside the API's envelope and without an API key: its own edge (shared/edge/public-route.ts),
 * its own throttle on the stage, and every path under `prefix` reaches its function, which answers
 * only `<prefix><token>` and the same 404 page for anything else.
 */
export interface PublicRoute<Id extends string = string> {
  /** Names the handler (functions/<kebab id>.ts), the stack's function and its log lines. */
  id: Id;
  /** `/u/`: the route serves `/u/{token}`. */
  prefix: string;
  /** The methods it answers (any other: a 405 page). */
  methods: readonly ('GET' | 'POST')[];
  /** What the page is, for the function's description and the documentation. */
  summary: string;
  function: FunctionAccess;
}

/**
 * The API Gateway paths of a public route: every path under its prefix, and the prefix itself
 * without its slash (`/u`, which API Gateway also matches for `/u/`; a route may not end in one).
 */
export const publicRoutePaths = (prefix: string): [under: string, itself: string] => [
  `${prefix}{proxy+}`,
  prefix.replace(/\/$/, ''),
];
