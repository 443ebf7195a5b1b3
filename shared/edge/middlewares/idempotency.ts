import { ApiError } from '#shared/api/errors.js';
import { fingerprintOf, type IdempotencyRequest, type IdempotencyStore } from '#shared/jobs/idempotency.js';
import { logger } from '#shared/platform/logger.js';
import type { ApiMiddleware, ApiRequest, CallableResult } from './types.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

// 1 to 255 printable ASCII characters (docs/api.md, Idempotency-Key).
const WELL_FORMED_KEY = /^[\x20-\x7e]{1,255}$/;

const refused = (why: string) => new ApiError('INVALID_ARGUMENT', `Idempotency-Key ${why}`);

/**
 * The `Idempotency-Key` header of a route that starts a job, after the body and the organization
 * are checked. Without the header nothing changes. With it, the key is claimed for the credential
 * (shared/jobs/idempotency.ts): a key already answered for the same operation and `data` answers
 * that answer again, byte for byte, without calling the route (`context.answered`); a key used with another request is
 * refused, nothing started; a key whose first request is still being answered is ABORTED.
 * Only a success is recorded: a failed request gives its claim up, and a repeat runs again.
 */
export const idempotency = (
  store: IdempotencyStore,
  operation: string,
  now: () => number = Date.now,
): ApiMiddleware => {
  const claims = new WeakMap<object, { request: IdempotencyRequest; claimId: string }>();
  return {
    before: async (request: ApiRequest) => {
      const key = request.event.headers?.[IDEMPOTENCY_HEADER];
      if (key === undefined) return;
      if (!WELL_FORMED_KEY.test(key)) throw refused('must be 1 to 255 printable ASCII characters.');
      const asked = {
        apiKey: request.context.credential?.apiKey ?? '',
        key,
        fingerprint: fingerprintOf(operation, request.context.data),
      };
      const claim = await store.claim(asked, now());
      if (claim.outcome === 'claimed') {
        claims.set(request, { request: asked, claimId: claim.claimId });
        return;
      }
      if (claim.fingerprint !== asked.fingerprint) {
        throw refused('was already used with a different request; use a new key for a new request.');
      }
      if (claim.outcome === 'in_progress') {
        throw new ApiError(
          'ABORTED',
          'The first request with this Idempotency-Key is still being answered; retry shortly.',
        );
      }
      // Not an early return, which would skip every `after` (the logger's, the metrics'): the
      // handler answers it in place of the route, and the envelope wraps it as the first time.
      request.context.answered = JSON.parse(claim.answer) as CallableResult;
    },
    after: async (request: ApiRequest) => {
      const claimed = claims.get(request);
      if (!claimed) return;
      const { message, data } = request.response as CallableResult;
      await store.record(claimed.request, claimed.claimId, JSON.stringify({ message, data }), now());
    },
    onError: async (request: ApiRequest) => {
      const claimed = claims.get(request);
      if (!claimed) return;
      await store.release(claimed.request, claimed.claimId).catch((error: unknown) => {
        // The claim then lapses on its own (IDEMPOTENCY_CLAIM_MS): a repeat waits that long at most.
        logger.warn('Idempotency claim not released', { error });
      });
    },
  };
};
