import type { Context } from 'aws-lambda';
import type { RouteFunction } from '../function-loader.js';

/**
 * What the twin and its functions' process say to each other over the IPC channel (structured
 * clone): the host asks for invocations and the routes; the process answers each.
 */

/** A Lambda context without its methods; the deadline stands for getRemainingTimeInMillis. */
export interface ContextData {
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
  /** Epoch ms; none when the context has no timeout (then Middy sets no early-timeout timer). */
  deadline?: number;
}

export type HostMessage =
  | { type: 'invoke'; id: number; entry: string; event: unknown; context: ContextData }
  | { type: 'routes' };

export interface ErrorData {
  name: string;
  message: string;
  stack?: string;
}

export type ProcessMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: ErrorData }
  | { type: 'routes'; routes: RouteFunction[] }
  | { type: 'routes'; error: ErrorData };

export const contextData = (context: Context): ContextData => {
  const remaining = context.getRemainingTimeInMillis as (() => number) | undefined;
  return {
    functionName: context.functionName,
    functionVersion: context.functionVersion,
    invokedFunctionArn: context.invokedFunctionArn,
    memoryLimitInMB: context.memoryLimitInMB,
    awsRequestId: context.awsRequestId,
    logGroupName: context.logGroupName,
    logStreamName: context.logStreamName,
    ...(typeof remaining === 'function' ? { deadline: Date.now() + remaining.call(context) } : {}),
  };
};

/** The context again, counting down to the same deadline (local/lambda-context.ts makes the original). */
export const contextFrom = ({ deadline, ...data }: ContextData): Context => {
  const context: Context = {
    ...data,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, (deadline ?? 0) - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
  if (deadline === undefined) delete (context as Partial<Context>).getRemainingTimeInMillis;
  return context;
};

export const errorData = (error: unknown): ErrorData =>
  error instanceof Error
    ? { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) }
    : { name: 'Error', message: String(error) };

/** The error as the caller in the twin sees it: same name, message and stack (the function's). */
export const errorFrom = (data: ErrorData): Error => {
  const error = new Error(data.message);
  error.name = data.name;
  if (data.stack) error.stack = data.stack;
  return error;
};
