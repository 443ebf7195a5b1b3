import * as z from 'zod/mini';
import { ApiError } from './errors.js';

/**
 * The route's schema applied to a parsed body, and its failures said the way a caller reads them:
 * INVALID_ARGUMENT whose message names the first offending field and whose details list every issue.
 */

const NOT_AN_ENVELOPE = 'Request body must be a JSON object with a single key, data.';

export interface IssueDetail {
  path: string;
  message: string;
}

/** Renders a zod path the way a client writes it: data.userIds[3]. */
export const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (text, segment) =>
      typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${String(segment)}` : String(segment),
    '',
  ) || 'body';

const wrapIn = <S extends z.core.$ZodType>(schema: S) =>
  z.strictObject({ data: schema }, { error: (issue) => (issue.code === 'invalid_type' ? NOT_AN_ENVELOPE : undefined) });

// Built once per route schema: a new zod object schema is compiled on its first parse, so
// building one per request would pay that on every request.
const envelopes = new WeakMap<z.core.$ZodType, ReturnType<typeof wrapIn>>();
const envelope = <S extends z.core.$ZodType>(schema: S) => {
  const known = envelopes.get(schema);
  if (known) return known;
  const wrapped = wrapIn(schema);
  envelopes.set(schema, wrapped);
  return wrapped;
};

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/**
 * Wording for issues no schema words itself: zod/mini ships no locale, so its own default is a
 * bare "Invalid input". Schema-level messages take precedence over this map.
 */
const fallbackMessage = (issue: z.core.$ZodRawIssue): string | undefined =>
  issue.code === 'invalid_type' ? `must be ${article(issue.expected)}` : undefined;

/** One step into a schema through zod's exported classes and their public `shape` and `def`. */
const inner = (schema: unknown): unknown =>
  schema instanceof z.ZodMiniOptional || schema instanceof z.ZodMiniNullable || schema instanceof z.ZodMiniDefault
    ? schema.def.innerType
    : undefined;

const unwrapped = (schema: unknown): unknown => {
  let current = schema;
  for (let next = inner(current), guard = 0; next !== undefined && guard < 8; next = inner(current), guard++) {
    current = next;
  }
  return current;
};

/**
 * The keys the object schema at `path` of `schema` knows (through optional, nullable, default and
 * array wrappers); none if there is no object there, or if zod's classes no longer look as this
 * expects (a hint is a courtesy: without one the message is still whole).
 */
export const knownKeysAt = (schema: unknown, path: readonly PropertyKey[]): string[] => {
  try {
    let current = unwrapped(schema);
    for (const segment of path) {
      if (typeof segment === 'number') current = current instanceof z.ZodMiniArray ? current.def.element : undefined;
      else if (current instanceof z.ZodMiniObject && Object.hasOwn(current.shape, segment))
        current = current.shape[segment as string];
      else current = undefined;
      current = unwrapped(current);
    }
    const keys = current instanceof z.ZodMiniObject ? Object.keys(current.shape) : [];
    return keys.every((key) => typeof key === 'string') ? keys : [];
  } catch {
    return [];
  }
};

/** A known key the unknown one is a slip of: a singular for a plural (or the reverse), or another letter case. */
const meant = (key: string, known: readonly string[]): string | undefined =>
  known.find((candidate) => candidate === `${key}s` || `${candidate}s` === key) ??
  known.find((candidate) => candidate.toLowerCase() === key.toLowerCase());

/** "data has an unknown key: documentId (did you mean documentIds?)" */
const unknownKeysMessage = (where: string, keys: readonly string[], known: readonly string[]): string => {
  const hints = keys.map((key) => meant(key, known)).filter((hint): hint is string => hint !== undefined);
  const hint = hints.length > 0 ? ` (did you mean ${hints.join(', ')}?)` : '';
  return `${where} has ${keys.length === 1 ? 'an unknown key' : 'unknown keys'}: ${keys.join(', ')}${hint}`;
};

/**
 * Checks `value` against `schema`: its data, or the issues said the way a caller reads them and
 * a message naming the first (`whole` names the value itself: "The request body").
 */
export const checkValue = <S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  whole: string,
): { success: true; data: z.infer<S> } | { success: false; message: string; issues: IssueDetail[] } => {
  const parsed = z.safeParse(schema, value, { reportInput: true, error: fallbackMessage });
  if (parsed.success) return { success: true, data: parsed.data as z.infer<S> };
  const issues: IssueDetail[] = parsed.error.issues.map((issue) => {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      return { path, message: unknownKeysMessage(path === 'body' ? whole : path, issue.keys, known) };
    }
    if (issue.code === 'invalid_type' && issue.input === undefined && path !== 'body') {
      return { path, message: `${path} is required` };
    }
    return { path, message: issue.message };
  });
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  const message = first
    ? first.path === 'body' || first.message.startsWith(first.path)
      ? first.message
      : `${first.path}: ${first.message}`
    : 'Invalid request.';
  return { success: false, message: `${message}${more}`, issues };
};

/** Checks a parsed body against `{data}` and the route's schema; answers `data` or throws INVALID_ARGUMENT. */
export const parseCallableBody = <S extends z.core.$ZodType>(schema: S, body: unknown): z.infer<S> => {
  const checked = checkValue(envelope(schema), body, 'The request body');
  if (checked.success) return (checked.data as { data: z.infer<S> }).data;
  throw new ApiError('INVALID_ARGUMENT', checked.message, checked.issues);
};
