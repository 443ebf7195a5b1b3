import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger per process (Powertools). Request headers are never logged:
 * the auth token travels in them.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'notification-preferences' });
