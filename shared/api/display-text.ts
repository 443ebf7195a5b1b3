import * as z from 'zod/mini';

/**
 * Bidirectional control characters: the embeddings and overrides (U+202A to U+202E), the
 * isolates (U+2066 to U+2069) and the marks (U+200E, U+200F, U+061C). In text shown to people
 * (a policy's labels, on the preference page and in other tools) they can make it read as
 * something else than it is (a label that displays backwards, or reorders what follows it), so
 * such text refuses them.
 */
export const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;

/** The rule as a message names it, after the field's name. */
export const BIDI_CONTROL_RULE =
  'must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C)';

// C0, DEL and C1 control characters (Unicode category Cc).
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * Text for people (a policy's labels, an organization's display name): `min` to `max` characters,
 * well-formed, without control or bidirectional control characters. HTML-escaped wherever shown.
 */
export const displayText = (name: string, min: number, max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .check(
      z.refine((value: string) => value.length >= min && value.length <= max, {
        error: `${name} must be ${min} to ${max} characters`,
        abort: true,
      }),
      z.refine((value: string) => !CONTROL_CHARACTER.test(value), {
        error: `${name} must not contain control characters`,
      }),
      z.refine((value: string) => !BIDI_CONTROL.test(value), { error: `${name} ${BIDI_CONTROL_RULE}` }),
      z.refine((value: string) => value.isWellFormed(), { error: `${name} must be well-formed Unicode` }),
    );
