import { readFileSync } from 'node:fs';

/**
 * The page's only script, the search (search.js, plain browser JavaScript), inlined as it is
 * written: the page's Content-Security-Policy admits it by the hash of exactly this text.
 */
export const SEARCH_SCRIPT = readFileSync(new URL('./search.js', import.meta.url), 'utf8');
