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
  | 'PartiQLUpdate'
  | 'PartiQLInsert';

/** SQS actions a function may be given to produce messages (consuming goes through the event source). */
export type QueueAction = 'SendMessage';

export type QueueName = 'migrations' | 'erasures';

/** Deployment settings a function reads from its environment (the stack sets them from CDK context). */
export type FunctionSetting =
  | 'deliveryDefaults'
  | 'credentialCache'
  | 'migrationMaxReceiveCount'
  | 'historyRetention'
  | 'erasureMaxReceiveCount'
  | 'rateLimit'
  | 'policyCache';

/** Actions on the service's event bus. */
export type EventBusAction = 'PutEvents';

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
  /** Tables whose change stream invokes the function (the stack adds the event source mappings). */
  streams?: readonly TableName[];
  eventBus?: readonly EventBusAction[];
  settings?: readonly FunctionSetting[];
}

/** API Gateway's HTTP API gives up on an integration after 30 s: an HTTP function gets less. */
export const MAX_HTTP_TIMEOUT_SECONDS = 29;

/**
 * One HTTP route as its function needs it at run time: the `data` it accepts, the `result.data`
 * it answers (the source of its type), its success message, and what its function may touch.
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
  result: Res;
  message: string;
  /** The scope a credential needs to call the route (docs/api.md, Authentication). */
  scope: Scope;
  function: FunctionAccess;
}
