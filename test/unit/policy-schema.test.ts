import { describe, expect, test } from '@jest/globals';
import * as z from 'zod/mini';
import { setPolicyRequest } from '#shared/policy/routes/set-policy.js';
import { MAX_POLICY_BYTES, MAX_POLICY_CATEGORIES } from '#shared/policy/schema.js';

/** The issues zod reports for a set request, as `path: message`. */
const issues = (data: unknown): string[] => {
  const parsed = z.safeParse(setPolicyRequest, data);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};
const withPolicy = (policy: unknown, extra: Record<string, unknown> = {}) => ({
  organizationId: 'acme',
  policy,
  ...extra,
});

describe('a policy is refused with a message naming the field', () => {
  test.each([
    ['a category id with capitals', { categories: { Comment: { label: 'Comments' } } }, 'policy.categories.Comment'],
    ['a category id starting with a dot', { categories: { '.x': { label: 'x' } } }, 'policy.categories..x'],
    ['a category id of 65 characters', { categories: { ['c'.repeat(65)]: { label: 'x' } } }, 'policy.categories'],
    ['a label missing', { categories: { comment: {} } }, 'policy.categories.comment.label: label is required'],
    ['an empty label', { categories: { comment: { label: '' } } }, 'label must be 1 to 100 characters'],
    ['a label of 101 characters', { categories: { comment: { label: 'l'.repeat(101) } } }, 'label must be 1 to 100'],
    [
      'a description of 501 characters',
      { categories: { c: { label: 'x', description: 'd'.repeat(501) } } },
      'description must be 0 to 500',
    ],
    [
      'a control character in a label',
      { categories: { c: { label: 'a\u0007b' } } },
      'label must not contain control characters',
    ],
    [
      'a lone surrogate in a description',
      { categories: { c: { label: 'x', description: '\ud800' } } },
      'well-formed Unicode',
    ],
    ['a rule without a value', { channels: { email: { locked: true } } }, 'policy.channels.email.value'],
    ['a rule value outside the enum', { channels: { email: { value: 'SOME' } } }, 'policy.channels.email.value'],
    [
      'locked that is not a boolean',
      { channels: { email: { value: 'ALL', locked: 'yes' } } },
      'locked must be true or false',
    ],
    ['an unknown channel', { channels: { sms: { value: 'ALL' } } }, 'policy.channels'],
    ['an unknown key', { channels: {}, extra: 1 }, 'policy'],
    ['a policy that is not an object', [], 'policy must be an object'],
  ])('%s', (_name, policy, expected) => {
    expect(issues(withPolicy(policy)).join('\n')).toContain(expected);
  });

  test.each([
    ['U+202E (right-to-left override)', '\u202E'],
    ['U+202A (left-to-right embedding)', '\u202A'],
    ['U+2066 (left-to-right isolate)', '\u2066'],
    ['U+2069 (pop directional isolate)', '\u2069'],
    ['U+200E (left-to-right mark)', '\u200E'],
    ['U+200F (right-to-left mark)', '\u200F'],
    ['U+061C (Arabic letter mark)', '\u061C'],
  ])('a bidi control character, %s, in a label or a description', (_name, character) => {
    const bidi = 'must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069';
    expect(issues(withPolicy({ categories: { c: { label: `Comments${character}txt.exe` } } })).join('\n')).toContain(
      `policy.categories.c.label: label ${bidi}`,
    );
    expect(
      issues(withPolicy({ categories: { c: { label: 'x', description: `a${character}b` } } })).join('\n'),
    ).toContain(`policy.categories.c.description: description ${bidi}`);
  });

  test('right-to-left text itself is accepted (only the control characters are refused)', () => {
    expect(issues(withPolicy({ categories: { c: { label: 'تعليقات', description: 'הערות על מסמך' } } }))).toEqual([]);
  });

  test(`more than ${MAX_POLICY_CATEGORIES} categories, or more than ${MAX_POLICY_BYTES} bytes as JSON`, () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_POLICY_CATEGORIES + 1 }, (_, i) => [`c${i}`, { label: 'x' }]),
    );
    expect(issues(withPolicy({ categories: many })).join('\n')).toContain(
      `at most ${MAX_POLICY_CATEGORIES} categories`,
    );
    const large = Object.fromEntries(
      Array.from({ length: MAX_POLICY_CATEGORIES }, (_, i) => [
        `c${i}`,
        { label: 'l'.repeat(100), description: 'é'.repeat(500) },
      ]),
    );
    expect(Buffer.byteLength(JSON.stringify({ categories: large }))).toBeGreaterThan(MAX_POLICY_BYTES);
    expect(issues(withPolicy({ categories: large })).join('\n')).toContain(`at most ${MAX_POLICY_BYTES} bytes`);
  });

  test('expectedVersion must be a whole number, 0 or more', () => {
    for (const expectedVersion of [-1, 1.5, '1', null]) {
      expect(issues(withPolicy({}, { expectedVersion })).join('\n')).toContain(
        'expectedVersion must be a whole number',
      );
    }
    expect(issues(withPolicy({}, { expectedVersion: 0 }))).toEqual([]);
  });

  test('the largest policy within the limits is accepted: 100 categories, labels and descriptions at their maximum', () => {
    const fits = Object.fromEntries(
      Array.from({ length: MAX_POLICY_CATEGORIES }, (_, i) => [
        `c${i}`,
        { label: 'l'.repeat(100), description: 'd'.repeat(500), channels: { email: { value: 'ALL', locked: true } } },
      ]),
    );
    expect(Buffer.byteLength(JSON.stringify({ categories: fits }))).toBeLessThanOrEqual(MAX_POLICY_BYTES);
    expect(issues(withPolicy({ categories: fits }))).toEqual([]);
  });
});
