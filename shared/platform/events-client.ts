import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { MAX_ATTEMPTS, requestHandler } from './aws-clients.js';
import { traced } from './tracing.js';

/**
 * The EventBridge client, built once per process (module scope), with the same retry and socket
 * settings as the other clients and traced in Lambda likewise. Only the change publisher imports it.
 */
export const eventBridgeClient = traced(new EventBridgeClient({ maxAttempts: MAX_ATTEMPTS, requestHandler }));
