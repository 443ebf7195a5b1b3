import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_REGION = 'local';
/** The twin's function names are this prefix, a dash and the function's name. */
export const LOCAL_FUNCTION_PREFIX = 'notification-preferences-local';

export interface LocalContextOptions {
  functionName: string;
  /**
   * The function's timeout. Given, the context has getRemainingTimeInMillis counting down from
   * the invocation's start, as in Lambda (Middy then times the handler out just before it).
   */
  timeoutMs?: number;
  memoryLimitInMB?: number;
  region?: string;
}

/** A Lambda Context for one invocation: a fresh request id, names derived from the function. */
export const lambdaContext = ({
  functionName,
  timeoutMs,
  memoryLimitInMB = 512,
  region = LOCAL_REGION,
}: LocalContextOptions): Context => {
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  const context: Context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: String(memoryLimitInMB),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, (deadline ?? 0) - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
  // Without a timeout the method is absent, so Middy sets no early-timeout timer.
  if (deadline === undefined) delete (context as Partial<Context>).getRemainingTimeInMillis;
  return context;
};
