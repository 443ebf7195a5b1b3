import { Logger } from '@aws-lambda-powertools/logger';

/** The Powertools service name (the stack sets POWERTOOLS_SERVICE_NAME): logs, metrics and traces carry it. */
export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'notification-preferences';

/**
 * One structured JSON logger per process (Powertools). Request headers are never logged:
 * the auth token travels in them.
 */
export const logger = new Logger({ serviceName });
