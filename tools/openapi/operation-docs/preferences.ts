import { MAX_DOCUMENT_IDS, MAX_USER_IDS } from '#shared/api/identifiers.js';
import type { getConfigRoute } from '#shared/preferences/routes/get-config.js';
import type { resetConfigRoute } from '#shared/preferences/routes/reset-config.js';
import type { resolveConfigRoute } from '#shared/preferences/routes/resolve-config.js';
import type { setConfigRoute } from '#shared/preferences/routes/set-config.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, WRITE_ERRORS } from './common.js';

export const setConfigDocs: OperationDocs<typeof setConfigRoute> = {
  tag: 'Notification config',
  name: 'SetConfig',
  summary: 'Set notification config for users',
  description: [
    'Sets the delivery setting of one or more channels (inbox, email, slack: ALL, MINE or NONE) for each user, on each',
    "named document, or on the organization-level entry (the users' default for every document of the organization)",
    'when `documentIds` is omitted. A channel left out keeps its stored value; concurrent requests setting different',
    'channels of one entry both take effect; repeating a request gives the same state (safe to retry).',
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries, \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present`,
    '(duplicates collapsed, first occurrence kept), `config` sets at least one channel and nothing else. The answer',
    'lists every document id for every user: a request whose answer would pass 5 MB of UTF-8 is refused before any write.',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: WRITE_ERRORS,
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
    organization: {
      summary: 'Organization-level default (documentIds omitted)',
      value: { organizationId: 'acme', userIds: ['alice'], config: { inbox: 'MINE' } },
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
    '`config` is what is stored for that entry (channels never set are absent); `effective` resolves every channel',
    'from the document entry, then the organization entry, then the deployment defaults (inbox ALL, email MINE,',
    'slack NONE unless configured); `source` says which layer gave each channel.',
    '',
    `Limits: \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present (duplicates collapsed).`,
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
          effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
          source: { inbox: 'organization', email: 'default', slack: 'default' },
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
    'no `deliver` and no `recipients`. Reads only: at most ceil(2N/100) batched reads for N users, issued together.',
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries (duplicates collapsed), \`activity.involvedUserIds\` 0 to`,
    `${MAX_USER_IDS} entries. ${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    activity: {
      summary: 'A comment that mentions bob, on doc-1',
      value: {
        organizationId: 'acme',
        documentId: 'doc-1',
        userIds: ['alice', 'bob', 'carol'],
        activity: { involvedUserIds: ['bob'] },
      },
      result: {
        documentId: 'doc-1',
        users: {
          alice: {
            userId: 'alice',
            effective: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'organization', email: 'document', slack: 'document' },
            deliver: { inbox: false, email: false, slack: false },
          },
          bob: {
            userId: 'bob',
            effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'default', email: 'document', slack: 'document' },
            deliver: { inbox: true, email: true, slack: false },
          },
          carol: {
            userId: 'carol',
            effective: { inbox: 'ALL', email: 'MINE', slack: 'NONE' },
            source: { inbox: 'default', email: 'default', slack: 'default' },
            deliver: { inbox: true, email: false, slack: false },
          },
        },
        recipients: { inbox: ['bob', 'carol'], email: ['bob'], slack: [] },
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
      'users{}.effective': 'Every channel resolved: document entry, then organization entry, then deployment default.',
      'users{}.source': 'Which layer gave each effective channel.',
      'users{}.deliver': 'With an activity: whether each channel delivers it to this user.',
      recipients: 'With an activity: the delivering user ids per channel, in request order.',
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
    'partial-failure rule as config/set; a reset of a document under migration follows the rule for writes.',
    '',
    `Limits: \`userIds\` 1 to ${MAX_USER_IDS} entries, \`documentIds\` 1 to ${MAX_DOCUMENT_IDS} entries when present`,
    '(duplicates collapsed), `channels` a non-empty list of distinct channel names when present. A request whose answer',
    "would pass 5 MB of UTF-8 (every user's entry lists every document id) is refused before any write.",
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
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
