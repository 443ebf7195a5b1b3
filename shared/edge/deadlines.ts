import type { Context } from 'aws-lambda';

/*
 * The deadlines every HTTP skeleton keeps (docs/design.md, Deadlines): the API's edge
 * (http-route.ts) and the pages' (public-route.ts).
 */

/** Time kept back from the function's deadline to send the answer. */
export const DEADLINE_MARGIN_MS = 200;

/**
 * The route's own work stops this much earlier than Middy's early timeout: long enough to cancel
 * the calls in flight and answer what was done (config/set's 503 carries its per-user map), which
 * Middy's timeout, answering for the handler, could not.
 */
export const ROUTE_STOP_MS = 1_000;

/** Aborted `ROUTE_STOP_MS` before Middy's early timeout, or with Middy's own signal, whichever is first. */
export const routeSignal = (context: Context, signal: AbortSignal): AbortSignal => {
  const remaining =
    typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  if (remaining === undefined) return signal;
  return AbortSignal.any([signal, AbortSignal.timeout(Math.max(0, remaining - DEADLINE_MARGIN_MS - ROUTE_STOP_MS))]);
};
