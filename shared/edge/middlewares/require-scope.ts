import type { Scope } from '#shared/api/scopes.js';
import { hasScope, scopeDenied, unauthenticated } from '#shared/auth/credential.js';
import type { ApiMiddleware, ApiRequest } from './types.js';

/** The route's scope, checked before anything of the body: it needs nothing of it. */
export const requireScope = (scope: Scope): ApiMiddleware => ({
  before: (request: ApiRequest) => {
    const { credential } = request.context;
    if (!credential) throw unauthenticated();
    if (!hasScope(credential, scope)) throw scopeDenied(scope);
  },
});
