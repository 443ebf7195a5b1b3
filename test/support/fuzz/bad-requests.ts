import fc from 'fast-check';
import { authVariants } from './hostile-headers.js';

export interface RawRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const jsonText = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '{', '{"data":', 'null', '[]', '{"data":null}', '{"data":{}}', '"data"', '{"__proto__":{}}'),
);

// Values that are invalid for every field of every route (string, array or config object).
const INVALID_VALUES = [null, 42, true, {}, [], '', 'x'.repeat(300), [1], { bad: 1 }, ['\u0000'], '\ud800', 'a\u0007'];

/**
 * Turns a valid `data` object into an invalid one, one way or several at once: a required key
 * removed, a value replaced by one that no field accepts, or an unknown key added.
 */
export type DataMutation = (data: Record<string, unknown>) => void;

/** Values of INVALID_VALUES that a route accepts for one of its fields (an empty policy is a policy). */
export type Accepted = Record<string, readonly unknown[]>;

const mutate = (
  valid: Record<string, unknown>,
  required: readonly string[],
  extra: readonly DataMutation[] = [],
  accepted: Accepted = {},
) =>
  fc
    .array(
      fc.oneof(
        ...(extra.length ? [fc.constantFrom(...extra)] : []),
        fc.constantFrom(...required).map((key) => (d: Record<string, unknown>) => {
          delete d[key];
        }),
        fc
          .tuple(fc.constantFrom(...Object.keys(valid)), fc.constantFrom(...INVALID_VALUES))
          .filter(([key, value]) => !(accepted[key] ?? []).some((ok) => JSON.stringify(ok) === JSON.stringify(value)))
          .map(([key, value]) => (d: Record<string, unknown>) => {
            d[key] = structuredClone(value);
          }),
        fc.string({ minLength: 1, maxLength: 10 }).map((key) => (d: Record<string, unknown>) => {
          // defineProperty: a plain assignment to "__proto__" would add no key at all.
          Object.defineProperty(d, key in valid ? `${key}_` : key, { value: 'extra', enumerable: true });
        }),
        // Well-formed but not granted to the credential.
        fc.constant((d: Record<string, unknown>) => {
          d.organizationId = 'org-not-granted';
        }),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((mutations) => {
      const data = structuredClone(valid);
      for (const apply of mutations) apply(data);
      return data;
    });

/** Methods other than POST that a client (or a scanner) may send; HEAD is left to the wire cases (http-wire.test.ts). */
export const ODD_METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export interface RouteFuzzSpec {
  name: string;
  path: string;
  /** A valid `data` for a credential granted org-1. */
  valid: Record<string, unknown>;
  required: string[];
  /** Route-specific ways to break a valid `data`. */
  extraMutations?: DataMutation[];
  accepted?: Accepted;
}

/**
 * Requests that must all be refused: random bodies, bodies whose `data` is a mutated valid
 * one, odd methods and content types, every kind of credential mistake.
 */
export const badRequests = (
  validData: Record<string, unknown>,
  required: readonly string[],
  apiKey: string,
  token: string,
  {
    extraMutations = [],
    methods = ODD_METHODS,
    accepted = {},
  }: { extraMutations?: readonly DataMutation[]; methods?: readonly string[]; accepted?: Accepted } = {},
) =>
  fc
    .record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constant('POST') }, fc.constantFrom(...methods)),
      contentType: fc.oneof(
        { weight: 5, arbitrary: fc.constant('application/json') },
        fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/x+json', ''),
        fc.string({ maxLength: 20 }),
      ),
      auth: authVariants(apiKey, token),
      extraHeaders: fc.dictionary(
        fc.constantFrom('x-forwarded-for', 'accept', 'x-custom', 'origin'),
        fc.string({ maxLength: 10 }),
        {
          maxKeys: 2,
        },
      ),
      body: fc.oneof(
        {
          weight: 3,
          arbitrary: mutate(validData, required, extraMutations, accepted).map((data) => JSON.stringify({ data })),
        },
        jsonText,
        fc.constant(undefined),
        fc.record({ data: fc.constant(validData), junk: fc.jsonValue({ maxDepth: 1 }) }).map((b) => JSON.stringify(b)),
      ),
    })
    .map(
      ({ method, contentType, auth, extraHeaders, body }): RawRequest => ({
        method,
        headers: { ...extraHeaders, ...auth, ...(contentType ? { 'content-type': contentType } : {}) },
        body,
      }),
    );
