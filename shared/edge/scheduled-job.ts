import type { Context, ScheduledEvent } from 'aws-lambda';
import { observed } from './observed.js';

/**
 * A function an EventBridge schedule invokes (a timer in the local twin). A run that throws fails
 * the invocation, so that the function's Errors alarm tells an operator.
 */
export const scheduledJob = <T>(run: (context: Context) => Promise<T>) =>
  observed<ScheduledEvent, T>().handler((_event, context) => run(context));
