import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import { serviceName, tracingEnabled } from './environment.js';

export const tracer: Tracer | undefined = tracingEnabled()
  ? // No HTTP capture: the only HTTP calls are the AWS SDK's, which captureAWSv3Client traces.
    new (await import('@aws-lambda-powertools/tracer')).Tracer({
      serviceName: serviceName(),
      captureHTTPsRequests: false,
    })
  : undefined;

/** An AWS SDK v3 client whose calls are X-Ray subsegments (the client itself when tracing is off). */
export const traced = <T>(client: T): T => (tracer ? tracer.captureAWSv3Client(client) : client);

/**
 * The handler's subsegment, as a list of middlewares for Middy's `use` (empty when tracing is off:
 * Middy refuses an empty middleware). Responses are not recorded: they hold user ids and
 * preferences, and a large one would not fit in a segment anyway. Errors are.
 */
export const traceHandler = <Event, Result, Err extends Error, Ctx>(): MiddlewareObj<Event, Result, Err, Ctx>[] =>
  (tracer ? [captureLambdaHandler(tracer, { captureResponse: false })] : []) as MiddlewareObj<
    Event,
    Result,
    Err,
    Ctx
  >[];
