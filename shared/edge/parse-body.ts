import * as z from 'zod/mini';
import { ApiError } from '#shared/api/errors.js';

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
  z.strictObject(
    { data: schema },
    {
      error: (issue) =>
        issue.code === 'invalid_type' ? 'Request body must be a JSON object with a single key, data.' : undefined,
    },
  );

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
 * Wording for issues no schema words itself: zod/mini ships no locale, so its own default
 * is a bare "Invalid input". Schema-level messages take precedence over this map.
 */
const fallbackMessage = (issue: z.core.$ZodRawIssue): string | undefined =>
  issue.code === 'invalid_type' ? `must be ${article(issue.expected)}` : undefined;

/**
 * Parses `{data}` against the route's schema. A failure is INVALID_ARGUMENT whose message
 * names the first offending field and whose details list every issue.
 */
export const parseCallableBody = <S extends z.core.$ZodType>(schema: S, body: unknown): z.infer<S> => {
  const parsed = envelope(schema).safeParse(body, { reportInput: true, error: fallbackMessage });
  if (parsed.success) return (parsed.data as { data: z.infer<S> }).data;
  const issues: IssueDetail[] = parsed.error.issues.map((issue) => {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const where = path === 'body' ? 'the request body' : path;
      return { path, message: `Unknown key(s) in ${where}: ${issue.keys.join(', ')}` };
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
  throw new ApiError('INVALID_ARGUMENT', `${message}${more}`, issues);
};
