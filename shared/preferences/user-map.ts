/**
 * A response map keyed by user id. Built with Object.fromEntries, which defines own keys:
 * assigning `map['__proto__'] = x` on a plain object sets its prototype instead, and the
 * user `__proto__` would vanish from the JSON answer.
 */
export const userMap = <T>(entries: Iterable<readonly [string, T]>): Record<string, T> => Object.fromEntries(entries);
