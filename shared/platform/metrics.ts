import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsNamespace, metricsRecorded, serviceName } from './environment.js';
import { logger } from './logger.js';

/**
 * Business metrics, as CloudWatch Embedded Metric Format lines on stdout (Powertools Metrics):
 * CloudWatch Logs turns them into metrics, so emitting one costs no API call and no IAM
 * permission. The handler chains flush them once per invocation (logMetrics middleware).
 *
 * Namespace: the stack sets POWERTOOLS_METRICS_NAMESPACE on every function to the stack's name,
 * so that stages sharing an account and region keep their figures apart (environment.ts).
 * Dimension: `service` (Powertools' default), plus `reason` on AuthFailures.
 */

export const METRIC_NAMES = {
  /** Entries written by config/set: one per (user, document), or per user at the organization level. */
  entriesSet: 'EntriesSet',
  /** Entries config/reset wrote (channels removed), counted as config/set counts. */
  entriesReset: 'EntriesReset',
  /** Schedules schedule/set wrote (set or removed), one per user. */
  schedulesSet: 'SchedulesSet',
  migrationsCompleted: 'MigrationsCompleted',
  /** Migrations the consumer marked failed (after their last attempt, or a failure retrying cannot cure). */
  migrationsFailed: 'MigrationsFailed',
  /** Refused requests, by `reason` (AuthFailureReason); never the key or the token. */
  authFailures: 'AuthFailures',
  /** Requests refused because their credential's rate was exceeded (429). */
  rateLimited: 'RateLimited',
  /** Pages of links in emails that could not be served (a dependency or a bug): a page asking to try again. */
  linkPageFailures: 'LinkPageFailures',
  /** Changes a person made from a link in an email: one per one-click unsubscribe or saved preference page. */
  linkChanges: 'LinkChanges',
} as const;

type Diagnostics = NonNullable<NonNullable<ConstructorParameters<typeof Metrics>[0]>['logger']>;

// Powertools' own notices go through the service's logger. "No application metrics to publish"
// is what every invocation without a business metric (each read) says: debug, not a warning.
const diagnostics: Diagnostics = {
  debug: (message: string) => logger.debug(message),
  info: (message: string) => logger.info(message),
  warn: (message: string) =>
    message.startsWith('No application metrics') ? logger.debug(message) : logger.warn(message),
  error: (message: string) => logger.error(message),
};

let instance: { metrics: Metrics; recorded: boolean } | undefined;

// Built on first use, not at import: the local twin sets the functions' environment after the
// shared modules have loaded.
const current = () => {
  instance ??= {
    metrics: new Metrics({
      namespace: metricsNamespace(),
      serviceName: serviceName(),
      logger: diagnostics,
    }),
    recorded: metricsRecorded(),
  };
  return instance;
};

/** The process's metrics, for the logMetrics middleware. */
export const serviceMetrics = (): Metrics => current().metrics;

/** The metrics to add to, or undefined where they are not recorded. */
const recording = (): Metrics | undefined => {
  const { metrics, recorded } = current();
  return recorded ? metrics : undefined;
};

const WRITTEN_METRICS = {
  set: METRIC_NAMES.entriesSet,
  reset: METRIC_NAMES.entriesReset,
  schedule: METRIC_NAMES.schedulesSet,
} as const;

export const countEntriesWritten = (operation: keyof typeof WRITTEN_METRICS, count: number): void => {
  recording()?.addMetric(WRITTEN_METRICS[operation], MetricUnit.Count, count);
};

export const countMigrationEnded = (status: 'completed' | 'failed'): void => {
  recording()?.addMetric(
    status === 'completed' ? METRIC_NAMES.migrationsCompleted : METRIC_NAMES.migrationsFailed,
    MetricUnit.Count,
    1,
  );
};

/**
 * A dimension of the whole flush: a refused request records no other metric (it stops before
 * its route), so nothing else is counted under the reason.
 */
export const countAuthFailure = (reason: string): void => {
  const metrics = recording();
  metrics?.addDimension('reason', reason);
  metrics?.addMetric(METRIC_NAMES.authFailures, MetricUnit.Count, 1);
};

export const countRateLimited = (): void => {
  recording()?.addMetric(METRIC_NAMES.rateLimited, MetricUnit.Count, 1);
};

export const countLinkPageFailure = (): void => {
  recording()?.addMetric(METRIC_NAMES.linkPageFailures, MetricUnit.Count, 1);
};

export const countLinkChange = (): void => {
  recording()?.addMetric(METRIC_NAMES.linkChanges, MetricUnit.Count, 1);
};
