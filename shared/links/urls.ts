/*
 * Where the links point (docs/operations.md, Where the links point: a custom domain): the stage's LINKS_BASE_URL
 * when it names one (a custom domain, possibly with a base path), else the address the
 * links/create request itself came to: the API's own domain, over HTTPS (plain HTTP only for a
 * loopback address, the local twin).
 */

/** The pages' paths under the base: `/u/<token>` (unsubscribe) and `/p/<token>` (preferences). */
export const UNSUBSCRIBE_PREFIX = '/u/';
export const PREFERENCES_PREFIX = '/p/';

// A host name or address and an optional port: nothing else is taken from the request.
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i;
const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|\[::1\])(:\d{1,5})?$/i;

/** Whether `value` is a host name or address with an optional port, and nothing else. */
export const isHostName = (value: string | undefined): value is string => value !== undefined && HOST.test(value);

/** The base URL of the links for a request that came to `domainName`, without a trailing slash. */
export const linkBaseUrl = (configured: string | undefined, domainName: string | undefined): string => {
  if (configured) return configured;
  if (!isHostName(domainName)) throw new Error('The request names no host to build links on');
  return `${LOOPBACK.test(domainName) ? 'http' : 'https'}://${domainName.toLowerCase()}`;
};

export const unsubscribeUrl = (base: string, token: string): string => `${base}${UNSUBSCRIBE_PREFIX}${token}`;
export const preferencesUrl = (base: string, token: string): string => `${base}${PREFERENCES_PREFIX}${token}`;
