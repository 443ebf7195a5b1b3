import { startLocalRuntime } from '#local/runtime.js';
import { serve } from './protocol.js';

/**
 * The service as `npm start --in-memory` runs it (API Gateway twin, the real handlers,
 * its store started as `npm start` starts it), with the deployed credential cache (60 s) and logs
 * silenced.
 */
const runtime = await startLocalRuntime({
  host: '127.0.0.1',
  port: 0,
  inMemory: true,
  dataDir: '/nonexistent-in-memory',
  // The change publisher is a function of its own on AWS: its work is not the routes'.
  changePublisher: false,
  env: { CREDENTIAL_CACHE_TTL_SECONDS: '60', POWERTOOLS_LOG_LEVEL: 'SILENT' },
});
serve(
  {
    baseUrl: runtime.baseUrl,
    headers: { 'x-service-api-key': runtime.apiKey, 'x-service-auth-token': runtime.token },
  },
  () => runtime.close(),
);
