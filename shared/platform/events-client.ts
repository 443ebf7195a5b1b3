import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { MAX_ATTEMPTS, requestHandler } from './aws-clients.js';

/**
 * The EventBridge client, built once per process (module scope), with the same retry and socket
 * settings as the other clients. Only the change publisher imports it.
 */
export const eventBridgeClient = new EventBridgeClient({ maxAttempts: MAX_ATTEMPTS, requestHandler });
