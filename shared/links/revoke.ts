import { ApiError } from '#shared/api/errors.js';
import { distinct } from '#shared/api/identifiers.js';
import type { LinkRevoker } from './revocation.js';
import type { RevokeLinksRequest, RevokeLinksResult } from './routes/revoke-links.js';

export interface RevokeLinksDeps {
  revoker: LinkRevoker;
  now?: () => Date;
}

/**
 * docs/api.md, links/revoke: every link made for these users until now stops working (to the
 * second: a link made in the same second is revoked too). Safe to repeat; one that runs out of
 * time answers 503, and its repeat finishes the work.
 */
export const revokeLinks = async (
  { revoker, now = () => new Date() }: RevokeLinksDeps,
  { organizationId, userIds }: RevokeLinksRequest,
  { signal }: { signal?: AbortSignal } = {},
): Promise<RevokeLinksResult> => {
  const at = now();
  try {
    await revoker.revoke(organizationId, distinct(userIds), at, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) {
      throw new ApiError('UNAVAILABLE', 'Not every link could be revoked in time; the request is safe to retry.');
    }
    throw error;
  }
  return { revokedBefore: new Date((Math.floor(at.getTime() / 1000) + 1) * 1000).toISOString() };
};
