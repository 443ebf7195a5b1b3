import { startLocalRuntime } from '#local/runtime.js';
import { DEFAULT_CREDENTIAL_CACHE_SECONDS, DEFAULT_POLICY_CACHE_SECONDS, ENV } from '#shared/platform/environment.js';
import { serve } from './protocol.js';

/**
 * The service as `npm start --in-memory` runs it (API Gateway twin, the real handlers,
 * its store started as `npm start` starts it), with the deployed credential and policy caches
 * (the twin's own policy cache is off, so that a policy set on a laptop applies at once: a warm
 * function on AWS reads an organization's policy once per cache period, not per request) and
 * logs silenced.
 */
const runtime = await startLocalRuntime({
  host: '127.0.0.1',
  port: 0,
  inMemory: true,
  dataDir: '/nonexistent-in-memory',
  // The change publisher is a function of its own on AWS: its work is not the routes'.
  changePublisher: false,
  env: {
    [ENV.credentialCacheSeconds]: String(DEFAULT_CREDENTIAL_CACHE_SECONDS),
    [ENV.policyCacheSeconds]: String(DEFAULT_POLICY_CACHE_SECONDS),
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  },
});
serve(
  {
    baseUrl: runtime.baseUrl,
    headers: { 'x-service-api-key': runtime.apiKey, 'x-service-auth-token': runtime.token },
  },
  () => runtime.close(),
);
