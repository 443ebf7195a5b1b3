import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './environment.js';

/**
 * One structured JSON logger per process (Powertools). Request headers are never logged:
 * the auth token travels in them.
 */
export const logger = new Logger({ serviceName: serviceName() });
