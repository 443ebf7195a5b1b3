import type { getPolicyRoute } from '#shared/policy/routes/get-policy.js';
import type { setPolicyRoute } from '#shared/policy/routes/set-policy.js';
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_LABEL_LENGTH,
  MAX_POLICY_BYTES,
  MAX_POLICY_CATEGORIES,
} from '#shared/policy/schema.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, TIME, withInvalidArgument } from './common.js';

const EXAMPLE_POLICY = {
  channels: { email: { value: 'MINE' as const } },
  categories: {
    comment: { label: 'Comments', channels: { slack: { value: 'NONE' as const } } },
    security: {
      label: 'Security alerts',
      description: 'Sign-ins and permission changes.',
      channels: { email: { value: 'ALL' as const, locked: true as const } },
    },
  },
};

export const setPolicyDocs: OperationDocs<typeof setPolicyRoute> = {
  tag: 'Organization policy',
  name: 'SetPolicy',
  notRepeatable: {
    why: 'a repeat of a request that was applied is refused 409 ABORTED: the version has moved on',
    onlyWith: 'expectedVersion',
  },
  summary: "Replace an organization's notification policy",
  description: [
    "Sets the organization's default rule per channel (`channels`) and per category (`categories`, each with a",
    'label for people and optionally its own rules); a rule with `locked: true` wins over every user choice for that',
    'channel (for that category, or for all categories). The policy is a layer read when config/get and',
    "config/resolve answer, never copied into users' entries: a change reaches every user at once (within the",
    "deployment's policy cache time, 10 s unless configured). It replaces the whole policy and is one version later",
    '(versions start at 1). With `expectedVersion`, it applies only if the stored policy is still that version (0:',
    'none yet); otherwise 409 ABORTED and nothing changes: read it again, merge, and set it with the new version.',
    'A change is published as a `Notification Policy Changed` event.',
    '',
    `Limits: at most ${MAX_POLICY_CATEGORIES} categories; a category id is 1 to 64 characters of a-z, 0-9, \`.\`, \`_\``,
    `and \`-\`, starting with a letter or a digit; \`label\` 1 to ${MAX_LABEL_LENGTH} characters, \`description\` at most`,
    `${MAX_DESCRIPTION_LENGTH}, neither with control characters nor bidirectional control characters (U+202A to`,
    `U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C); the policy at most ${MAX_POLICY_BYTES} bytes as JSON.`,
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: [
    ...withInvalidArgument(
      'Also a category id, rule, label, description or size of the policy beyond its limit, or a label or description with a bidirectional control character.',
    ).filter((error) => error.status !== 'UNAVAILABLE'),
    {
      status: 'ABORTED',
      when: '`expectedVersion` is not the stored version: `details.version` is. Never retry it as is.',
    },
    ...COMMON_ERRORS.filter((error) => error.status === 'UNAVAILABLE'),
  ],
  examples: {
    first: {
      summary: 'A first policy: email only what involves the user, comments never on Slack, security mail locked on',
      value: { organizationId: 'acme', policy: EXAMPLE_POLICY, expectedVersion: 0 },
      result: { version: 1, updatedAt: '2026-11-22T09:00:00.000Z' },
    },
  },
  invalidExample: {
    summary: 'A category id with capitals and a rule without a value',
    value: {
      organizationId: 'acme',
      policy: { categories: { Comment: { label: 'Comments' } }, channels: { inbox: {} } },
    },
  },
  errorExamples: {
    conflict: {
      summary: 'The policy changed since it was read',
      value: {
        error: {
          message: 'The policy is at version 2, not 1: read it again, and set it with expectedVersion 2.',
          status: 'ABORTED',
          details: { version: 2 },
        },
      },
    },
  },
  fields: {
    request: {
      expectedVersion:
        'The version the policy was read at (0: there is none yet); the set applies only if it still is.',
    },
    result: { version: 'The new version: 1 for the first policy, one more at each set.', updatedAt: TIME },
  },
};

export const getPolicyDocs: OperationDocs<typeof getPolicyRoute> = {
  tag: 'Organization policy',
  name: 'GetPolicy',
  summary: "Read an organization's notification policy",
  description: [
    'The policy as stored (never from a cache), its version, when and by which api key it was last set. An',
    'organization without a policy answers `{"policy": {}, "version": 0}`.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    policy: {
      summary: "acme's policy",
      value: { organizationId: 'acme' },
      result: {
        policy: EXAMPLE_POLICY,
        version: 1,
        updatedAt: '2026-11-22T09:00:00.000Z',
        updatedBy: 'ak_1f3e5d7c9b0a2c4e6f8d0b1a',
      },
    },
  },
  invalidExample: { summary: 'Missing organizationId', value: {} },
  fields: {
    result: {
      version: '0 when the organization has no policy.',
      updatedAt: TIME,
      updatedBy: 'The api key that set it.',
    },
  },
};
