import type { MiddlewareObj } from '@middy/core';
import { awsRegion, serviceName, tracingEnabled, xrayDaemonAddress, xrayTraceHeader } from './environment.js';
import {
  DaemonEmitter,
  daemonAddress,
  newSegmentId,
  parseTraceHeader,
  type Subsegment,
  type TraceHeader,
  traceHeaderOf,
} from './xray.js';

/**
 * X-Ray tracing in Lambda (unless POWERTOOLS_TRACE_ENABLED=false), recording what Powertools
 * Tracer did: a `## index.handler` subsegment per invocation, annotated with ColdStart and
 * Service, holding the error when one escapes the handler; one subsegment per AWS call (service,
 * operation, region, request id, table or queue, retries, HTTP status; error, throttle or fault),
 * whose trace header joins DynamoDB's and SQS's own segments to the trace. Responses are not
 * recorded: they hold user ids and preferences.
 *
 * Written here rather than taken from the X-Ray SDK: that SDK (with cls-hooked and semver) was
 * 118 KiB of every function's bundle and installed an async hook that every promise paid for, the
 * largest part of each cold start over the SDK-only baseline (npm run bench, Bundles and cold
 * start). This sends the same documents to the same daemon over UDP, parented on the function
 * segment Lambda opens for each invocation, with no hook: an AWS call finds its invocation's
 * handler subsegment by the trace's root, which is unique per invocation.
 */

const emitter = tracingEnabled() ? new DaemonEmitter(daemonAddress(xrayDaemonAddress())) : undefined;

/** Whether this process traces at all (in Lambda, unless turned off). */
export const tracingActive = emitter !== undefined;

/** The open handler subsegment of each traced invocation in this process, by trace root. */
const handlers = new Map<string, string>();

/** The current invocation's trace, when it is sampled (and tracing is on). */
const currentTrace = (): TraceHeader | undefined => {
  if (!emitter) return undefined;
  const trace = parseTraceHeader(xrayTraceHeader());
  return trace?.sampled ? trace : undefined;
};

const seconds = (ms: number) => ms / 1000;

const exceptionOf = (error: unknown) => ({
  message: error instanceof Error ? error.message : String(error),
  type: error instanceof Error ? error.name : typeof error,
});

let coldStart = true;

/**
 * The handler's subsegment, as a list of middlewares for Middy's `use` (empty when tracing is off:
 * Middy refuses an empty middleware).
 */
export const traceHandler = <Event, Result, Err extends Error, Ctx>(): MiddlewareObj<Event, Result, Err, Ctx>[] => {
  if (!emitter) return [];
  let open: { trace: TraceHeader; id: string; start: number; cold: boolean } | undefined;
  const close = (error?: unknown) => {
    if (!open) return;
    const { trace, id, start, cold } = open;
    open = undefined;
    handlers.delete(trace.root);
    emitter.send({
      name: '## index.handler',
      id,
      trace_id: trace.root,
      parent_id: trace.parent,
      start_time: seconds(start),
      end_time: seconds(Date.now()),
      type: 'subsegment',
      annotations: { ColdStart: cold, Service: serviceName() },
      ...(error === undefined ? {} : { fault: true, cause: { exceptions: [exceptionOf(error)] } }),
    });
  };
  return [
    {
      before: () => {
        const cold = coldStart;
        coldStart = false;
        const trace = currentTrace();
        if (!trace) return;
        open = { trace, id: newSegmentId(), start: Date.now(), cold };
        handlers.set(trace.root, open.id);
      },
      after: () => close(),
      onError: (request) => close(request.error),
    },
  ];
};

/** The part of an AWS SDK v3 client this needs: its middleware stack. */
interface TraceableClient {
  middlewareStack: {
    add(middleware: unknown, options: { step: 'initialize' | 'build'; name: string; priority?: 'high' }): void;
  };
}

interface CallContext {
  clientName?: string;
  commandName?: string;
}

interface CallOutput {
  $metadata?: { httpStatusCode?: number; requestId?: string; attempts?: number };
}

type CallError = Error & CallOutput & { $fault?: 'client' | 'server'; $retryable?: { throttling?: boolean } };

/** What X-Ray shows of a call's resources: the table(s) or the queue. */
const resourcesOf = (input: Record<string, unknown>) => ({
  ...(typeof input.TableName === 'string' ? { table_name: input.TableName } : {}),
  ...(input.RequestItems && typeof input.RequestItems === 'object'
    ? { table_names: Object.keys(input.RequestItems) }
    : {}),
  ...(typeof input.QueueUrl === 'string' ? { queue_url: input.QueueUrl } : {}),
  ...(typeof input.EventBusName === 'string' ? { event_bus_name: input.EventBusName } : {}),
});

/** An AWS SDK v3 client whose calls are X-Ray subsegments (unchanged when tracing is off). */
export const traced = <T>(sdkClient: T): T => {
  if (!emitter) return sdkClient;
  const client = sdkClient as unknown as TraceableClient;
  // One subsegment around the whole call, retries included.
  client.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command.
    (next: any, context: CallContext) => async (args: { input: Record<string, unknown> }) => {
      const trace = currentTrace();
      if (!trace) return next(args);
      const id = newSegmentId();
      (args as { xrayParent?: string }).xrayParent = id;
      const start = Date.now();
      const document = (outcome: CallOutput, error?: CallError): Subsegment => ({
        name: (context.clientName ?? 'AWS').replace(/Client$/, ''),
        id,
        trace_id: trace.root,
        parent_id: handlers.get(trace.root) ?? trace.parent,
        start_time: seconds(start),
        end_time: seconds(Date.now()),
        type: 'subsegment',
        namespace: 'aws',
        aws: {
          operation: (context.commandName ?? '').replace(/Command$/, ''),
          region: awsRegion(),
          request_id: outcome.$metadata?.requestId,
          retries: Math.max(0, (outcome.$metadata?.attempts ?? 1) - 1),
          ...resourcesOf(args.input ?? {}),
        },
        ...(outcome.$metadata?.httpStatusCode
          ? { http: { response: { status: outcome.$metadata.httpStatusCode } } }
          : {}),
        ...(error
          ? {
              ...(error.$fault === 'server' ? { fault: true } : { error: true }),
              ...(error.$retryable?.throttling ? { throttle: true } : {}),
              cause: { exceptions: [exceptionOf(error)] },
            }
          : {}),
      });
      try {
        const output = await next(args);
        emitter.send(document((output as { output?: CallOutput }).output ?? {}));
        return output;
      } catch (error) {
        emitter.send(document(error as CallError, error as CallError));
        throw error;
      }
    },
    { step: 'initialize', name: 'xrayTracing', priority: 'high' },
  );
  // The trace header on the request itself, naming the call's subsegment as the parent.
  client.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    (next: any) => async (args: { request?: { headers?: Record<string, string> }; xrayParent?: string }) => {
      const trace = currentTrace();
      if (trace && args.xrayParent && args.request?.headers) {
        args.request.headers['X-Amzn-Trace-Id'] = traceHeaderOf(trace.root, args.xrayParent);
      }
      return next(args);
    },
    { step: 'build', name: 'xrayTraceHeader' },
  );
  return sdkClient;
};
