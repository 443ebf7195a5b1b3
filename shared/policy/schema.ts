import * as z from 'zod/mini';
import { CATEGORY_ID_RULE, categoryId } from '#shared/api/categories.js';
import { CHANNELS, deliverySetting } from '#shared/api/channels.js';
import { displayText } from '#shared/api/display-text.js';
import { LOCALES } from '#shared/api/locales.js';
import { once } from '#shared/platform/once.js';

/** docs/api.md, Categories and policy: the limits of a policy. */
export const MAX_POLICY_CATEGORIES = 100;
export const MAX_LABEL_LENGTH = 100;
export const MAX_DESCRIPTION_LENGTH = 500;
/** As JSON, in UTF-8: an event carrying a policy before and after its change fits EventBridge's 256 KB. */
export const MAX_POLICY_BYTES = 100_000;

/** Text for people: labels and descriptions (display-text.ts). */
const text = displayText;

/**
 * A policy as set-policy accepts it and get-policy answers it, built on first use (once.ts):
 * only set-policy parses one. Its parts are shared, one instance each.
 */
export const policySchema = once(() => {
  const rule = z.strictObject(
    { value: deliverySetting, locked: z.optional(z.boolean({ error: 'locked must be true or false' })) },
    { error: (issue) => (issue.code === 'invalid_type' ? 'a rule must be an object {value, locked?}' : undefined) },
  );

  const rules = z.strictObject(
    Object.fromEntries(CHANNELS.map((channel) => [channel, z.optional(rule)])) as Record<
      (typeof CHANNELS)[number],
      z.ZodMiniOptional<typeof rule>
    >,
    {
      error: (issue) =>
        issue.code === 'invalid_type' ? 'channels must be an object of inbox, email, slack' : undefined,
    },
  );

  // `labels` and `descriptions`: the same text in the pages' other languages, keyed by locale.
  const translations = (name: string, min: number, max: number) =>
    z.optional(
      z.record(
        z.string().check(z.refine((key) => (LOCALES as readonly string[]).includes(key))),
        text(name, min, max),
        {
          error: (issue) =>
            issue.code === 'invalid_key'
              ? `each key of ${name}s must be one of ${LOCALES.join(', ')}`
              : `${name}s must be an object keyed by locale`,
        },
      ),
    );

  const categoryPolicy = z.strictObject({
    label: text('label', 1, MAX_LABEL_LENGTH),
    description: z.optional(text('description', 0, MAX_DESCRIPTION_LENGTH)),
    labels: translations('label', 1, MAX_LABEL_LENGTH),
    descriptions: translations('description', 0, MAX_DESCRIPTION_LENGTH),
    channels: z.optional(rules),
  });

  return z
    .strictObject(
      {
        channels: z.optional(rules),
        categories: z.optional(
          z
            .record(categoryId('category id'), categoryPolicy, {
              error: (issue) =>
                issue.code === 'invalid_key'
                  ? `each key of categories must be a category id (${CATEGORY_ID_RULE})`
                  : 'categories must be an object keyed by category id',
            })
            .check(
              z.refine((categories) => Object.keys(categories).length <= MAX_POLICY_CATEGORIES, {
                error: `categories must hold at most ${MAX_POLICY_CATEGORIES} categories`,
              }),
            ),
        ),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? 'policy must be an object' : undefined) },
    )
    .check(
      z.refine((policy) => Buffer.byteLength(JSON.stringify(policy), 'utf8') <= MAX_POLICY_BYTES, {
        error: `policy must be at most ${MAX_POLICY_BYTES} bytes as JSON (UTF-8)`,
      }),
    );
});
export type PolicyInput = z.input<ReturnType<typeof policySchema>>;
