import { grantsOrganization, permissionDenied, unauthenticated } from '#shared/auth/credential.js';
import type { ApiMiddleware, ApiRequest } from './types.js';

/** The organization the checked `data` names must be granted to the credential. */
export const requireOrganization = (): ApiMiddleware => ({
  before: (request: ApiRequest) => {
    const { credential, data } = request.context;
    if (!credential) throw unauthenticated();
    const { organizationId } = data as { organizationId: string };
    if (!grantsOrganization(credential, organizationId)) throw permissionDenied(organizationId);
  },
});
