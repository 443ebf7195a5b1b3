import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { stallLimitSeconds } from '#shared/platform/environment.js';
import { logger } from '#shared/platform/logger.js';
import { serviceMetrics } from '#shared/platform/metrics.js';
import { traceHandler } from '#shared/platform/tracing.js';
import { DEFAULT_STALL_LIMIT_MS } from './stuck-policy.js';
import { type SweepDeps, sweepMigrations } from './sweep.js';

/** What one scheduled sweep answers (in its log and to a local caller): counts, never records. */
export interface SweepSummary {
  candidates: number;
  resumed: number;
  failed: number;
}

/** MIGRATION_STALL_LIMIT_SECONDS, or the default stall limit (a deployment leaves it unset). */
export const stallLimitMs = (env?: NodeJS.ProcessEnv): number =>
  1000 * (stallLimitSeconds(env) ?? DEFAULT_STALL_LIMIT_MS / 1000);

/**
 * The scheduled handler (an EventBridge rule every few minutes, a timer in the local twin): one
 * sweep of stuck migrations (sweep.ts). A candidate it could not handle fails the invocation,
 * so that the function's Errors alarm tells an operator; the others are done first.
 */
export const createSweepHandler = (deps: SweepDeps) =>
  middy<ScheduledEvent, SweepSummary, Error, Context>()
    .use(traceHandler())
    .use(logMetrics(serviceMetrics()))
    .handler(async (_event, context) => {
      logger.addContext(context);
      const { candidates, resumed, failed } = await sweepMigrations(deps);
      return { candidates, resumed: resumed.length, failed: failed.length };
    });
