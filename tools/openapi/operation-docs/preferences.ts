import { MAX_DOCUMENT_IDS, MAX_ENTRIES_PER_REQUEST, MAX_USER_IDS } from '#shared/api/identifiers.js';
import { MAX_CATEGORY_LAYERS } from '#shared/preferences/layers.js';
import type { getConfigRoute } from '#shared/preferences/routes/get-config.js';
import type { resetConfigRoute } from '#shared/preferences/routes/reset-config.js';
import type { resolveConfigRoute } from '#shared/preferences/routes/resolve-config.js';
import type { setConfigRoute } from '#shared/preferences/routes/set-config.js';
import {
  BODY_RULE,
  COMMON_ERRORS,
  IDENTIFIER_RULE,
  type OperationDocs,
  WRITE_ERRORS,
  withInvalidArgument,
} from './common.js';

const CATEGORY_RULE =
  'A category id is 1 to 64 characters of a-z, 0-9, `.`, `_` and `-`, starting with a letter or a digit.';

/** How every channel is resolved (docs/api.md, Categories and policy), said once for get and resolve. */
const RESOLUTION = [
  'Each channel is resolved from the first layer that has a value: a locked rule of the organization policy',
  '(`locked`); the document entry for the category (`document:category`), then for all categories (`document`); the',
  'organization-level entry for the category (`organization:category`), then for all categories (`organization`);',
  "the policy's rule for the category (`policy:category`), then for all categories (`policy`); the deployment",
  'default (`default`). Without `category` the category layers are skipped; without a policy, the policy layers.',
  "The policy may be read from a cache of a few seconds (the deployment's policyCacheSeconds, 10 unless configured).",
].join('\n');

/** A set refused for a lock, or for one category layer too many. */
const SET_ERRORS = [
  ...withInvalidArgument(
    `Also a set that would give an entry a category layer beyond ${MAX_CATEGORY_LAYERS}: \`details\` is then the per-user map (the refused users with \`success: false\`; the other entries were written).`,
    WRITE_ERRORS,
  ),
  {
    status: 'FAILED_PRECONDITION' as const,
    when: "`config` names a channel the organization's policy locks (for the category, or for all categories); `details.lockedChannels` names them. Nothing is written.",
  },
];

export const setConfigDocs: OperationDocs<typeof setConfigRoute> = {
  tag: 'Notification config',
  name: 'SetConfig',
  summary: 'Set notification config for users',
  description: [
    'Sets the delivery setting of one or more channels (inbox, email, slack: ALL, MINE or NONE) for each user, on each',
    "named document, or on the organization-level entry (the users' default for every document of the organization)",
    'when `documentIds` is omitted. A channel left out keeps its stored value; concurrent requests setting different',
    'channels of one entry both take effect; repeating a request gives the same state (safe to retry). With',
    "`category`, the entry's layer for that category is set instead of its all-categories layer. A channel the",
    "organization's policy locks (for the category, or for every category) is refused.",
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries, \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present`,
    '(duplicates collapsed, first occurrence kept), `config` sets at least one channel and nothing else. A request',
    `writes at most ${MAX_ENTRIES_PER_REQUEST} entries (distinct users times documents, the organization level counting as`,
    'one document); more is a bulk import. The answer lists every document id for every user: a request whose answer',
    'would pass 5 MB of UTF-8 is refused. Both are checked before any write.',
    `An entry holds at most ${MAX_CATEGORY_LAYERS} category layers. ${CATEGORY_RULE} ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: SET_ERRORS,
  examples: {
    oneDocument: {
      summary: 'Two users, one document',
      value: {
        organizationId: 'acme',
        userIds: ['alice', 'bob'],
        documentIds: ['doc-1'],
        config: { email: 'MINE', slack: 'NONE' },
      },
      result: {
        alice: { success: true, userId: 'alice', documentId: 'doc-1', scope: 'document', message: 'Config set.' },
        bob: { success: true, userId: 'bob', documentId: 'doc-1', scope: 'document', message: 'Config set.' },
      },
    },
    severalDocuments: {
      summary: 'One user, several documents',
      value: { organizationId: 'acme', userIds: ['alice'], documentIds: ['doc-2', 'doc-3'], config: { inbox: 'NONE' } },
      result: {
        alice: {
          success: true,
          userId: 'alice',
          documentId: 'doc-2',
          documentIds: ['doc-2', 'doc-3'],
          scope: 'document',
          message: 'Config set.',
        },
      },
    },
    withConsent: {
      summary: 'With the consent the caller captured (the evidence of the change)',
      value: {
        organizationId: 'acme',
        userIds: ['dana'],
        config: { email: 'ALL' },
        consent: {
          source: 'signup-form',
          textVersion: 'newsletter-v2',
          text: 'Yes, email me about comments and mentions. I can change this at any time.',
          ipAddress: '203.0.113.7',
          userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)',
        },
      },
      result: {
        dana: { success: true, userId: 'dana', documentId: null, scope: 'organization', message: 'Config set.' },
      },
    },
    organization: {
      summary: 'Organization-level default (documentIds omitted)',
      value: { organizationId: 'acme', userIds: ['alice'], config: { inbox: 'MINE' } },
      result: {
        alice: { success: true, userId: 'alice', documentId: null, scope: 'organization', message: 'Config set.' },
      },
    },
    category: {
      summary: 'No email about comments, for every document (the category layer of the organization-level entry)',
      value: { organizationId: 'acme', userIds: ['alice'], category: 'comment', config: { email: 'NONE' } },
      result: {
        alice: { success: true, userId: 'alice', documentId: null, scope: 'organization', message: 'Config set.' },
      },
    },
  },
  invalidExample: {
    summary: 'Unknown channel value and an empty user list',
    value: { organizationId: 'acme', userIds: [], config: { inbox: 'SOME' } },
  },
  fields: {
    result: {
      '': 'One entry per distinct user id, keyed by that id.',
    },
  },
};

export const getConfigDocs: OperationDocs<typeof getConfigRoute> = {
  tag: 'Notification config',
  name: 'GetConfig',
  summary: "Read a user's stored and effective notification config",
  description: [
    'Answers one item per requested document, or the organization-level item when `documentIds` is omitted.',
    '`config` is what is stored for that entry for all categories (channels never set are absent), `categories` its',
    'stored category layers keyed by category id; `effective` resolves every channel (for `category` when given)',
    'and `source` says which layer gave each. With `explain: true`, `trace` lists per channel every layer that has a',
    'value, in order: the first is the winner, the last is always `default`.',
    '',
    RESOLUTION,
    '',
    `Limits: \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present (duplicates collapsed). ${CATEGORY_RULE}`,
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    document: {
      summary: 'One document',
      value: { organizationId: 'acme', userId: 'alice', documentIds: ['doc-1'] },
      result: [
        {
          userId: 'alice',
          documentId: 'doc-1',
          scope: 'document',
          config: { email: 'MINE', slack: 'NONE' },
          categories: {},
          effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
          source: { inbox: 'organization', email: 'document', slack: 'document' },
        },
      ],
    },
    organization: {
      summary: 'Organization-level entry (documentIds omitted)',
      value: { organizationId: 'acme', userId: 'alice' },
      result: [
        {
          userId: 'alice',
          documentId: null,
          scope: 'organization',
          config: { inbox: 'MINE' },
          categories: { comment: { email: 'NONE' } },
          effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
          source: { inbox: 'organization', email: 'default', slack: 'default' },
        },
      ],
    },
    explain: {
      summary: 'For comments, every layer that has a value shown',
      value: { organizationId: 'acme', userId: 'alice', category: 'comment', explain: true },
      result: [
        {
          userId: 'alice',
          documentId: null,
          scope: 'organization',
          config: { inbox: 'MINE' },
          categories: { comment: { email: 'NONE' } },
          effective: { inbox: 'MINE', email: 'NONE', slack: 'NONE' },
          source: { inbox: 'organization', email: 'organization:category', slack: 'default' },
          trace: {
            inbox: [
              { source: 'organization', value: 'MINE' },
              { source: 'default', value: 'ALL' },
            ],
            email: [
              { source: 'organization:category', value: 'NONE' },
              { source: 'default', value: 'MINE' },
            ],
            slack: [{ source: 'default', value: 'NONE' }],
          },
        },
      ],
    },
  },
  invalidExample: {
    summary: 'Missing userId',
    value: { organizationId: 'acme', documentIds: ['doc-1'] },
  },
  fields: {
    result: {
      '': 'One item per requested document, or one organization-level item.',
    },
  },
};

export const resolveConfigDocs: OperationDocs<typeof resolveConfigRoute> = {
  tag: 'Notification config',
  name: 'ResolveConfig',
  summary: 'Who receives an activity on a document, on which channel',
  description: [
    'What a notification dispatcher calls when an activity happens on a document. For each distinct user of',
    '`userIds`, `users` holds the effective setting of every channel and the layer that gave it, exactly as',
    'config/get answers for that user and document. With an `activity`, each user also gets `deliver` (ALL: true;',
    'MINE: true when the user is in `activity.involvedUserIds`, e.g. mentioned or replied to; NONE: false) and',
    '`recipients` lists the delivering user ids per channel, in the order of `userIds`. Without an activity there is',
    'no `deliver` and no `recipients`. With `category`, every user is resolved for that category. Reads only: at most',
    'ceil(2N/100) batched reads for N users, issued together, and one read of the policy.',
    '',
    'With an activity each user also gets `decision`: per channel `{action, deliverAt?, reason}` at `at` (default:',
    "now) by the user's schedule (schedule/set): `suppress` (the preference says no), `send`, `digest` (collected",
    'for the next digest slot, `deliverAt`), or `defer` (`snoozed` or `quiet_hours`: deliver at `deliverAt`, the',
    'first instant outside every quiet window). `priority: urgent` sends whatever the preference allows, ignoring',
    'quiet hours, snooze and digest. `sendNow` lists per channel the users to send to now, `deferred` the others',
    'that are not suppressed with their `deliverAt`, both in the order of `userIds`; `recipients` keeps its meaning',
    '(everyone the preference lets through). Keep what is deferred and ask again at its `deliverAt`.',
    '',
    RESOLUTION,
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries (duplicates collapsed), \`activity.involvedUserIds\` 0 to`,
    `${MAX_USER_IDS} entries. The answer at most 5 MB of UTF-8: each user's id appears in it twice, and with an`,
    'activity six more times, so a request whose answer could pass 5 MB (very many users with long ids) is refused',
    `before any read; split it. ${CATEGORY_RULE} ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withInvalidArgument('Also a request whose answer could pass 5 MB (very many users with long ids).'),
  examples: {
    activity: {
      summary: "A comment that mentions bob, on doc-1, at 23:30 in Berlin on a Monday (bob's quiet hours)",
      value: {
        organizationId: 'acme',
        documentId: 'doc-1',
        userIds: ['alice', 'bob', 'carol'],
        activity: { involvedUserIds: ['bob'] },
        at: '2026-11-23T22:30:00Z',
      },
      result: {
        documentId: 'doc-1',
        users: {
          alice: {
            userId: 'alice',
            effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'organization', email: 'document', slack: 'document' },
            deliver: { inbox: false, email: false, slack: false },
            decision: {
              inbox: { action: 'suppress', reason: 'preference' },
              email: { action: 'suppress', reason: 'preference' },
              slack: { action: 'suppress', reason: 'preference' },
            },
          },
          bob: {
            userId: 'bob',
            effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'default', email: 'document', slack: 'document' },
            deliver: { inbox: true, email: true, slack: false },
            decision: {
              inbox: { action: 'send', reason: 'preference' },
              email: { action: 'defer', deliverAt: '2026-11-24T06:00:00.000Z', reason: 'quiet_hours' },
              slack: { action: 'suppress', reason: 'preference' },
            },
          },
          carol: {
            userId: 'carol',
            effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'default', email: 'default', slack: 'default' },
            deliver: { inbox: true, email: false, slack: false },
            decision: {
              inbox: { action: 'send', reason: 'preference' },
              email: { action: 'suppress', reason: 'preference' },
              slack: { action: 'suppress', reason: 'preference' },
            },
          },
        },
        recipients: { inbox: ['bob', 'carol'], email: ['bob'], slack: [] },
        sendNow: { inbox: ['bob', 'carol'], email: [], slack: [] },
        deferred: {
          inbox: [],
          email: [{ userId: 'bob', action: 'defer', deliverAt: '2026-11-24T06:00:00.000Z' }],
          slack: [],
        },
      },
    },
    settingsOnly: {
      summary: 'Effective settings only (no activity)',
      value: { organizationId: 'acme', documentId: 'doc-2', userIds: ['alice'] },
      result: {
        documentId: 'doc-2',
        users: {
          alice: {
            userId: 'alice',
            effective: { inbox: 'NONE', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'document', email: 'default', slack: 'default' },
          },
        },
      },
    },
  },
  invalidExample: {
    summary: 'No document and an involved user list that is not a list',
    value: { organizationId: 'acme', userIds: ['alice'], activity: { involvedUserIds: 'bob' } },
  },
  fields: {
    result: {
      users: 'One entry per distinct requested user, keyed by user id.',
      'users{}.effective': 'Every channel resolved, in the order the description gives.',
      'users{}.source': 'Which layer gave each effective channel.',
      'users{}.deliver': 'With an activity: whether each channel delivers it to this user.',
      recipients: 'With an activity: the delivering user ids per channel, in request order.',
      'users{}.decision': 'With an activity: what each channel does with it at `at`.',
      sendNow: 'With an activity: per channel, the users to send to now, in request order.',
      deferred: 'With an activity: per channel, the users to deliver to later, with when and why.',
    },
  },
};

export const resetConfigDocs: OperationDocs<typeof resetConfigRoute> = {
  tag: 'Notification config',
  name: 'ResetConfig',
  summary: 'Reset notification config to the next layer',
  description: [
    "Removes the stored value of the named channels (all three when `channels` is omitted) from each user's entry",
    'on each named document, or from the organization-level entry when `documentIds` is omitted; an entry left',
    'with no channel is gone for every read. config/get then answers those channels from the next layer (organization, then',
    'the deployment default). Resetting what is not stored succeeds (safe to retry). Same per-user answer and',
    'partial-failure rule as config/set; a reset of a document under migration follows the rule for writes. With',
    "`category`, the entry's layer for that category is reset instead of its all-categories layer. A reset is",
    "allowed for a channel the organization's policy locks.",
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries, \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present`,
    '(duplicates collapsed), `channels` a non-empty list of distinct channel names when present. A request resets at',
    `most ${MAX_ENTRIES_PER_REQUEST} entries (distinct users times documents, the organization level counting as one`,
    "document), and one whose answer would pass 5 MB of UTF-8 (every user's entry lists every document id) is refused;",
    'both before any write.',
    `${CATEGORY_RULE} ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: WRITE_ERRORS,
  examples: {
    oneChannel: {
      summary: "Back to alice's organization default for inbox on doc-2",
      value: { organizationId: 'acme', userIds: ['alice'], documentIds: ['doc-2'], channels: ['inbox'] },
      result: {
        alice: { success: true, userId: 'alice', documentId: 'doc-2', scope: 'document', message: 'Config reset.' },
      },
    },
    organization: {
      summary: 'Every channel of the organization-level entry (documentIds and channels omitted)',
      value: { organizationId: 'acme', userIds: ['carol'] },
      result: {
        carol: { success: true, userId: 'carol', documentId: null, scope: 'organization', message: 'Config reset.' },
      },
    },
  },
  invalidExample: {
    summary: 'An unknown channel and a repeated one',
    value: { organizationId: 'acme', userIds: ['alice'], channels: ['inbox', 'sms'] },
  },
  fields: {
    result: {
      '': 'One entry per distinct user id, keyed by that id.',
    },
  },
};
