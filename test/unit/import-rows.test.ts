import { describe, expect, test } from '@jest/globals';
import { textSha256 } from '#shared/consent/consent.js';
import type { ImportFormat } from '#shared/imports/read.js';
import { checkLine, type LineContext } from '#shared/imports/rows.js';
import type { Policy } from '#shared/policy/model.js';

// A line of an import file checked as a set is (contract 15.1): the changes it asks for, or
// rejected whole with a reason a person can act on.

const policy: Policy = {
  channels: { slack: { value: 'NONE', locked: true } },
  categories: { billing: { label: 'Billing', channels: { email: { value: 'ALL', locked: true } } } },
};
const context: LineContext = {
  organizationId: 'org-1',
  importId: 'imp-1',
  policy,
  checkedAt: new Date('2026-06-01T00:00:00Z'),
};
const check = (format: ImportFormat, value: Record<string, unknown>, on: LineContext = context) =>
  checkLine(format, { line: 7, value }, on);
const unlocked: LineContext = { ...context, policy: {} };
const evidence = { via: 'import', importId: 'imp-1' };
const orgKey = (userId: string) => ({ organizationId: 'org-1', userId, documentId: null });

describe('lines become the changes they ask for', () => {
  test('jsonl: config at the organization level, all categories', () => {
    expect(check('jsonl', { userId: 'u1', config: { email: 'NONE' } })).toEqual({
      line: 7,
      changes: [{ key: orgKey('u1'), config: { email: 'NONE' }, evidence }],
      unmapped: [],
    });
  });

  test('jsonl: a document and category layer; null documentId and category mean the organization level', () => {
    expect(check('jsonl', { userId: 'u1', documentId: 'doc-1', category: 'news', config: { inbox: 'MINE' } })).toEqual({
      line: 7,
      changes: [
        {
          key: { organizationId: 'org-1', userId: 'u1', documentId: 'doc-1' },
          category: 'news',
          config: { inbox: 'MINE' },
          evidence,
        },
      ],
      unmapped: [],
    });
    const nulls = check('jsonl', { userId: 'u1', documentId: null, category: null, config: { inbox: 'ALL' } });
    expect(nulls).toEqual({
      line: 7,
      changes: [{ key: orgKey('u1'), config: { inbox: 'ALL' }, evidence }],
      unmapped: [],
    });
  });

  test('jsonl: a schedule, or null to remove it', () => {
    expect(check('jsonl', { userId: 'u1', schedule: { timeZone: 'Europe/Berlin' } })).toMatchObject({
      changes: [{ key: orgKey('u1'), schedule: { timeZone: 'Europe/Berlin' } }],
    });
    const removed = check('jsonl', { userId: 'u1', schedule: null });
    expect(removed).toMatchObject({ changes: [{ key: orgKey('u1'), schedule: null }] });
  });

  test('jsonl: the row’s consent is its evidence, and its text is carried to be stored', () => {
    const line = check('jsonl', {
      userId: 'u1',
      config: { email: 'NONE' },
      consent: { source: 'settings', capturedAt: '2026-05-02T00:00:00Z', textVersion: 'v2', text: 'Mails, yes.' },
    });
    expect(line).toEqual({
      line: 7,
      changes: [
        {
          key: orgKey('u1'),
          config: { email: 'NONE' },
          evidence: {
            via: 'import',
            importId: 'imp-1',
            source: 'settings',
            capturedAt: '2026-05-02T00:00:00.000Z',
            textVersion: 'v2',
            textSha256: textSha256('Mails, yes.'),
          },
          consentText: 'Mails, yes.',
        },
      ],
      unmapped: [],
    });
  });

  test('csv: the cells of a record; the channel columns are its config', () => {
    expect(check('csv', { userId: 'u1', documentId: 'doc-1', category: 'news', inbox: 'ALL', email: 'NONE' })).toEqual({
      line: 7,
      changes: [
        {
          key: { organizationId: 'org-1', userId: 'u1', documentId: 'doc-1' },
          category: 'news',
          config: { inbox: 'ALL', email: 'NONE' },
          evidence,
        },
      ],
      unmapped: [],
    });
  });

  test('knock: channel types and category layers, one change each; what has no equivalent is named', () => {
    const line = check(
      'knock',
      {
        userId: 'u1',
        preferenceSet: {
          channel_types: { email: false, sms: true },
          categories: { news: { channel_types: { in_app_feed: true } }, promo: false },
        },
      },
      unlocked,
    );
    expect(line).toEqual({
      line: 7,
      changes: [
        { key: orgKey('u1'), config: { email: 'NONE' }, evidence },
        { key: orgKey('u1'), category: 'news', config: { inbox: 'ALL' }, evidence },
        { key: orgKey('u1'), category: 'promo', config: { inbox: 'NONE', email: 'NONE', slack: 'NONE' }, evidence },
      ],
      unmapped: ['channel_types.sms'],
    });
  });

  test('novu: the global channels of a subscriber; workflows are named, not applied', () => {
    const line = check(
      'novu',
      {
        subscriberId: 's1',
        preferences: {
          global: { channels: { in_app: true, chat: false, push: true } },
          workflows: [{ workflow: { identifier: 'welcome' } }],
        },
      },
      unlocked,
    );
    expect(line).toEqual({
      line: 7,
      changes: [{ key: orgKey('s1'), config: { inbox: 'ALL', slack: 'NONE' }, evidence }],
      unmapped: ['global.channels.push', 'workflows.welcome'],
    });
  });
});

describe('a bad line is rejected whole, with its number and a clear reason', () => {
  test.each<[string, ImportFormat, Record<string, unknown>, string]>([
    ['an unknown field', 'jsonl', { userId: 'u1', colour: 'red', config: { email: 'NONE' } }, 'unknown key: colour'],
    [
      'a userId too long',
      'jsonl',
      { userId: 'x'.repeat(257), config: { email: 'NONE' } },
      'userId must be at most 256 characters',
    ],
    ['an empty userId', 'jsonl', { userId: '', config: { email: 'NONE' } }, 'userId must not be empty'],
    ['no userId', 'jsonl', { config: { email: 'NONE' } }, 'userId is required'],
    [
      'a bad category',
      'jsonl',
      { userId: 'u1', category: 'Big News', config: { email: 'NONE' } },
      'category must start with a lower-case letter',
    ],
    ['a bad channel value', 'jsonl', { userId: 'u1', config: { email: 'SOMETIMES' } }, 'config.email'],
    ['a bad channel value in a CSV cell', 'csv', { userId: 'u1', email: 'yes' }, 'config.email'],
    ['neither config nor schedule', 'jsonl', { userId: 'u1' }, 'neither config nor schedule'],
    ['a CSV row with no channel', 'csv', { userId: 'u1' }, 'config must set at least one of inbox, email, slack'],
    [
      'a schedule with a documentId',
      'jsonl',
      { userId: 'u1', documentId: 'doc-1', schedule: { timeZone: 'UTC' } },
      'names no documentId or category',
    ],
    [
      'a schedule with a category',
      'jsonl',
      { userId: 'u1', category: 'news', schedule: { timeZone: 'UTC' } },
      'names no documentId or category',
    ],
    [
      'a consent captured after the import was created',
      'jsonl',
      { userId: 'u1', config: { email: 'NONE' }, consent: { source: 'settings', capturedAt: '2026-06-01T00:00:01Z' } },
      'consent.capturedAt must not be in the future',
    ],
    [
      'a consent captured over 90 days before the import was created',
      'jsonl',
      { userId: 'u1', config: { email: 'NONE' }, consent: { source: 'settings', capturedAt: '2026-03-02T23:59:59Z' } },
      'consent.capturedAt must be at most 90 days ago',
    ],
    [
      'a channel the policy locks for every category',
      'jsonl',
      { userId: 'u1', config: { slack: 'ALL' } },
      "slack is locked by the organization's policy for every category",
    ],
    [
      'a channel the policy locks for the row’s category',
      'jsonl',
      { userId: 'u1', category: 'billing', config: { email: 'NONE' } },
      "email is locked by the organization's policy for category billing",
    ],
    [
      'a knock category turned on whole, one of whose channels is locked',
      'knock',
      { userId: 'u1', preferenceSet: { channel_types: { email: true }, categories: { news: true } } },
      "slack is locked by the organization's policy for category news",
    ],
    ['a knock line without a preference set', 'knock', { userId: 'u1' }, 'preferenceSet must be an object'],
    [
      'a knock line with nothing that maps',
      'knock',
      { userId: 'u1', preferenceSet: { channel_types: { sms: true } } },
      'Nothing on the line has an equivalent here (channel_types.sms)',
    ],
    [
      'a novu line with a bad subscriberId',
      'novu',
      { subscriberId: 42, preferences: { global: { channels: { email: true } } } },
      'userId must be a string',
    ],
  ])('%s', (_name, format, value, message) => {
    const line = check(format, value);
    expect(line).toEqual({ line: 7, error: expect.stringContaining(message) });
  });

  test('a consent captured exactly 90 days before the import’s creation, or at it, is accepted', () => {
    for (const capturedAt of ['2026-03-03T00:00:00Z', '2026-06-01T00:00:00Z']) {
      const line = check('jsonl', { userId: 'u1', config: { email: 'NONE' }, consent: { source: 's', capturedAt } });
      expect(line).toHaveProperty('changes');
    }
  });

  test('consent is checked against the import’s creation, not the time the line is read', () => {
    const value = {
      userId: 'u1',
      config: { email: 'NONE' },
      consent: { source: 's', capturedAt: '2026-05-31T00:00:00Z' },
    };
    expect(check('jsonl', value)).toHaveProperty('changes');
    expect(check('jsonl', value, { ...context, checkedAt: new Date('2026-05-30T00:00:00Z') })).toEqual({
      line: 7,
      error: 'consent.capturedAt must not be in the future',
    });
  });

  test('a line the reader could not read stays rejected with the reader’s reason', () => {
    expect(checkLine('jsonl', { line: 9, error: 'The line is not JSON' }, context)).toEqual({
      line: 9,
      error: 'The line is not JSON',
    });
  });

  test('a knock line with one bad category is rejected whole: none of its other changes apply', () => {
    const line = check('knock', {
      userId: 'u1',
      preferenceSet: {
        channel_types: { email: true },
        categories: { 'Not A Category': { channel_types: { email: false } } },
      },
    });
    expect(line).toEqual({ line: 7, error: expect.stringContaining('category must start with') });
  });
});

describe('__proto__ does no harm', () => {
  test('as a userId it is a user like any other', () => {
    expect(check('jsonl', JSON.parse('{"userId":"__proto__","config":{"email":"NONE"}}'))).toEqual({
      line: 7,
      changes: [{ key: orgKey('__proto__'), config: { email: 'NONE' }, evidence }],
      unmapped: [],
    });
  });

  test('as a category, a key of a row or a knock category, it is rejected and pollutes nothing', () => {
    expect(check('jsonl', JSON.parse('{"userId":"u1","category":"__proto__","config":{"email":"NONE"}}'))).toEqual({
      line: 7,
      error: expect.stringContaining('category must start with'),
    });
    expect(check('jsonl', JSON.parse('{"userId":"u1","__proto__":{"x":1},"config":{"email":"NONE"}}'))).toEqual({
      line: 7,
      error: expect.stringContaining('unknown key: __proto__'),
    });
    const knock = JSON.parse(
      '{"userId":"u1","preferenceSet":{"channel_types":{"__proto__":true,"email":true},"categories":{"__proto__":false}}}',
    );
    expect(check('knock', knock)).toEqual({ line: 7, error: expect.stringContaining('category must start with') });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).email).toBeUndefined();
  });
});
