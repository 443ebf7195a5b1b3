import { expect, jest, test } from '@jest/globals';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { setUnitTestEnv } from '../support/test-env.js';

// What Lambda sets: tracing on (shared/lambda/tracing.ts). Outside Lambda, as here, there is no
// segment to add to; the X-Ray SDK is told to ignore that rather than log an error per call.
process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs24.x';
process.env.AWS_XRAY_CONTEXT_MISSING = 'IGNORE_ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
setUnitTestEnv();

test('in Lambda, every call of the shared AWS clients is an X-Ray subsegment', async () => {
  const { tracer } = await import('#shared/platform/tracing.js');
  const { documentClient } = await import('#shared/platform/aws-clients.js');
  const { sqsClient } = await import('#shared/platform/sqs-client.js');
  expect(tracer?.isTracingEnabled()).toBe(true);
  expect(documentClient.middlewareStack.identify()).toContainEqual(expect.stringMatching(/^XRaySDKInstrumentation/));
  expect(sqsClient.middlewareStack.identify()).toContainEqual(expect.stringMatching(/^XRaySDKInstrumentation/));
});

test('a traced handler still answers where there is no segment', async () => {
  // Tracer's own notice that it found no segment.
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const { handler } = await import('#functions/get-config.js');
  const response = parseResponse(
    await handler(apiEvent('/v2/notifications/config/get', { body: { data: {} } }), lambdaContext()),
  );
  expect(response.statusCode).toBe(401);
});
