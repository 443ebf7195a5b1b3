import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AuthFailureReason } from '#shared/auth/authenticator.js';
import { logger, serviceName } from './logger.js';

/**
 * Business metrics, as CloudWatch Embedded Metric Format lines on stdout (Powertools Metrics):
 * CloudWatch Logs turns them into metrics, so emitting one costs no API call and no IAM
 * permission. The handler chains flush them once per invocation (logMetrics middleware).
 *
 * Namespace: the stack sets POWERTOOLS_METRICS_NAMESPACE on every function to the stack's name,
 * so that stages sharing an account and region keep their figures apart; outside a deployment
 * (the local twin, tests) this one. Dimension: `service` (Powertools' default), plus `reason`
 * on AuthFailures.
 */
export const LOCAL_METRICS_NAMESPACE = 'NotificationPreferences-local';

export const METRIC_NAMES = {
  /** Entries written by config/set: one per (user, document), or per user at the organization level. */
  entriesSet: 'EntriesSet',
  /** Entries config/reset wrote (channels removed), counted as config/set counts. */
  entriesReset: 'EntriesReset',
  migrationsCompleted: 'MigrationsCompleted',
  /** Migrations the consumer marked failed (after their last attempt, or a failure retrying cannot cure). */
  migrationsFailed: 'MigrationsFailed',
  /** Refused requests, by `reason` (AuthFailureReason); never the key or the token. */
  authFailures: 'AuthFailures',
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

/**
 * Whether metrics are recorded at all: in Lambda (AWS_EXECUTION_ENV set) always, and Powertools
 * then honours POWERTOOLS_METRICS_DISABLED; elsewhere (the local twin, tests, tools), where EMF
 * lines would only clutter the output, only when POWERTOOLS_METRICS_DISABLED is set (`false`
 * shows them).
 */
export const metricsRecorded = (env: NodeJS.ProcessEnv = process.env): boolean =>
  Boolean(env.AWS_EXECUTION_ENV) || env.POWERTOOLS_METRICS_DISABLED !== undefined;

let instance: { metrics: Metrics; recorded: boolean } | undefined;

// Built on first use, not at import: the local twin sets the functions' environment after the
// shared modules have loaded.
const current = () => {
  instance ??= {
    metrics: new Metrics({
      namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || LOCAL_METRICS_NAMESPACE,
      serviceName,
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

export const countEntriesWritten = (operation: 'set' | 'reset', count: number): void => {
  recording()?.addMetric(
    operation === 'set' ? METRIC_NAMES.entriesSet : METRIC_NAMES.entriesReset,
    MetricUnit.Count,
    count,
  );
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
export const countAuthFailure = (reason: AuthFailureReason): void => {
  const metrics = recording();
  metrics?.addDimension('reason', reason);
  metrics?.addMetric(METRIC_NAMES.authFailures, MetricUnit.Count, 1);
};
