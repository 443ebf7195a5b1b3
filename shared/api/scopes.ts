/**
 * What a credential may do (docs/api.md, Authentication): each route needs one scope, and `admin`
 * holds them all. A credential made before scopes existed has none listed and holds every scope;
 * one made without naming scopes gets DEFAULT_SCOPES.
 */
export const SCOPES = ['read', 'write', 'resolve', 'migrate', 'erase', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What `npm run credentials -- create` grants unless told otherwise: a dispatcher's and an app's needs. */
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'write', 'resolve'];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Whether a credential's scopes (undefined: a credential from before scopes, holding all) include `needed`. */
export const grantsScope = (scopes: readonly Scope[] | undefined, needed: Scope): boolean =>
  scopes === undefined || scopes.includes('admin') || scopes.includes(needed);
