import type { Context, ScheduledEvent } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, lambdaContext } from './lambda-context.js';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface ScheduleOptions {
  handler: ScheduledHandler;
  functionName: string;
  timeoutMs: number;
  /** The memory its context reports (Lambda's memoryLimitInMB). */
  memoryMb?: number;
  intervalMs: number;
  log?: (line: string) => void;
}

export interface LocalSchedule {
  /** Invokes the function now (after any run under way), as the next tick would. */
  runNow(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The local twin of an EventBridge schedule rule: invokes the function every `intervalMs`, one
 * run at a time (a slow run delays the next tick instead of overlapping it). A failed run is
 * logged and not retried, as the deployed rule's target is configured; the function logs its
 * own results.
 */
export const startSchedule = ({
  handler,
  functionName,
  timeoutMs,
  memoryMb,
  intervalMs,
  log = () => {},
}: ScheduleOptions): LocalSchedule => {
  let running: Promise<unknown> = Promise.resolve();
  let closed = false;
  const invoke = (): Promise<unknown> => {
    const event: ScheduledEvent = {
      version: '0',
      id: crypto.randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: LOCAL_ACCOUNT_ID,
      time: new Date().toISOString(),
      region: LOCAL_REGION,
      resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${functionName}`],
      detail: {},
    };
    const run = running.then(() =>
      handler(event, lambdaContext({ functionName, timeoutMs, memoryLimitInMB: memoryMb })),
    );
    running = run.then(
      () => {},
      (error: Error) => log(`${functionName} failed: ${error.message}`),
    );
    return run;
  };
  const timer = setInterval(() => {
    if (!closed) void invoke().catch(() => {});
  }, intervalMs);
  // The schedule alone does not keep the process alive.
  timer.unref();
  return {
    runNow: invoke,
    close: async () => {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
};
