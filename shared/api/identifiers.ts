import * as z from 'zod/mini';

/** docs/api.md, Identifiers and limits: every identifier is 1 to 256 characters, no control characters. */
export const MAX_IDENTIFIER_LENGTH = 256;
export const MAX_USER_IDS = 1000;
export const MAX_DOCUMENT_IDS = 30;
/**
 * A config/set or config/reset writes at most this many entries: distinct users times documents,
 * the organization level counting as one document. More is a job, a bulk import, not a
 * synchronous request.
 */
export const MAX_ENTRIES_PER_REQUEST = 5_000;
export const MAX_BODY_BYTES = 1024 * 1024;

// C0, DEL and C1 control characters (Unicode category Cc).
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * Length counts UTF-16 code units (JavaScript's `length`), which bounds the stored key size.
 * zod's own maxLength counts code points (an emoji is one code point, two units), so the cap is
 * a refinement of its own; it aborts, so zod's maxLength after it never fails and is there only
 * to put `maxLength` in the API document. Lone surrogates are rejected: they cannot be stored
 * as UTF-8, so two of them would collide.
 */
export const identifier = (name: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .check(
      z.minLength(1, { error: `${name} must not be empty` }),
      z.refine((value: string) => value.length <= MAX_IDENTIFIER_LENGTH, {
        error: `${name} must be at most ${MAX_IDENTIFIER_LENGTH} characters (UTF-16 code units)`,
        abort: true,
      }),
      z.maxLength(MAX_IDENTIFIER_LENGTH),
      z.refine((value: string) => !CONTROL_CHARACTER.test(value), {
        error: `${name} must not contain control characters`,
      }),
      z.refine((value: string) => value.isWellFormed(), { error: `${name} must be well-formed Unicode` }),
    );

/** Keeps the first occurrence of each value, in request order. */
export const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)];
