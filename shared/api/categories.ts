import * as z from 'zod/mini';

/**
 * A notification's category (`comment`, `mention`, `security`, ...): users choose per category,
 * organizations set defaults and locks per category (docs/api.md, Categories and policy).
 */
export const MAX_CATEGORY_LENGTH = 64;
const CATEGORY_ID = /^[a-z0-9][a-z0-9._-]*$/;
/** The rule in words, for the messages. */
export const CATEGORY_ID_RULE = `1 to ${MAX_CATEGORY_LENGTH} characters: a lower-case letter or a digit, then a-z, 0-9, '.', '_' or '-'`;

export const categoryId = (name: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .check(
      z.minLength(1, { error: `${name} must not be empty` }),
      z.maxLength(MAX_CATEGORY_LENGTH, { error: `${name} must be at most ${MAX_CATEGORY_LENGTH} characters` }),
      z.regex(CATEGORY_ID, {
        error: `${name} must start with a lower-case letter or a digit and hold only a-z, 0-9, '.', '_' and '-'`,
      }),
    );
