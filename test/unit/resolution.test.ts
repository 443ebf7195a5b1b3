import { describe, expect, test } from '@jest/globals';
import { BUILT_IN_DEFAULTS } from '#shared/api/channels.js';
import { ApiError } from '#shared/api/errors.js';
import type { Policy } from '#shared/policy/model.js';
import { assertUnlocked } from '#shared/preferences/locks.js';
import type { StoredEntry } from '#shared/preferences/model.js';
import { layersOf, resolveChannels, traceOf } from '#shared/preferences/resolution.js';

const entry = (overrides: Partial<StoredEntry>): StoredEntry => ({
  organizationId: 'acme',
  userId: 'alice',
  documentId: 'doc-1',
  scope: 'document',
  config: {},
  updatedAt: '2026-01-01T00:00:00.000Z',
  updatedBy: 'ak',
  version: 1,
  ...overrides,
});

const layers = (config: StoredEntry['config'], comment?: StoredEntry['config']): Partial<StoredEntry> => ({
  config,
  ...(comment ? { categories: { comment: { config: comment } } } : {}),
});

/** Every layer has a value for email; each case removes the winner and sees the next one win. */
const FULL = {
  document: entry(layers({ email: 'ALL' }, { email: 'NONE' })),
  organization: entry({ documentId: null, scope: 'organization', ...layers({ email: 'MINE' }, { email: 'ALL' }) }),
  policy: {
    channels: { email: { value: 'NONE' } },
    categories: { comment: { label: 'Comments', channels: { email: { value: 'MINE' } } } },
  } satisfies Policy,
};

describe('resolution order of one channel (contract: locks, document, organization, policy, default)', () => {
  test('with a category: every layer in order, each winning once the ones before it are gone', () => {
    const input = { ...FULL, category: 'comment', defaults: BUILT_IN_DEFAULTS };
    expect(layersOf(input, 'email')).toEqual([
      { source: 'document:category', value: 'NONE' },
      { source: 'document', value: 'ALL' },
      { source: 'organization:category', value: 'ALL' },
      { source: 'organization', value: 'MINE' },
      { source: 'policy:category', value: 'MINE' },
      { source: 'policy', value: 'NONE' },
      { source: 'default', value: 'MINE' },
    ]);
    const without = {
      ...input,
      document: entry(layers({ email: 'ALL' })),
      organization: entry({ documentId: null, scope: 'organization', ...layers({}, { email: 'ALL' }) }),
    };
    expect(resolveChannels(without).source.email).toBe('document');
    expect(resolveChannels({ ...without, document: undefined }).source.email).toBe('organization:category');
    expect(resolveChannels({ ...without, document: undefined, organization: undefined }).source.email).toBe(
      'policy:category',
    );
    expect(resolveChannels({ ...input, document: undefined, organization: undefined, policy: {} })).toMatchObject({
      source: { email: 'default' },
      effective: { email: BUILT_IN_DEFAULTS.email },
    });
  });

  test('without a category the category layers are skipped, and without a policy the answer is the old one', () => {
    const input = { ...FULL, defaults: BUILT_IN_DEFAULTS };
    expect(layersOf(input, 'email').map((step) => step.source)).toEqual([
      'document',
      'organization',
      'policy',
      'default',
    ]);
    const plain = { document: entry({ config: { inbox: 'NONE' } }), policy: {}, defaults: BUILT_IN_DEFAULTS };
    expect(resolveChannels(plain)).toEqual({
      effective: { inbox: 'NONE', email: BUILT_IN_DEFAULTS.email, slack: BUILT_IN_DEFAULTS.slack },
      source: { inbox: 'document', email: 'default', slack: 'default' },
    });
  });

  test("a lock wins over every user choice, appears once as locked, and a category's lock only for that category", () => {
    const policy: Policy = {
      channels: { slack: { value: 'NONE', locked: true } },
      categories: { security: { label: 'Security', channels: { email: { value: 'ALL', locked: true } } } },
    };
    const base = { ...FULL, policy, defaults: BUILT_IN_DEFAULTS };
    const security = traceOf({ ...base, category: 'security' });
    expect(security.email).toEqual([
      { source: 'locked', value: 'ALL' },
      { source: 'document', value: 'ALL' },
      { source: 'organization', value: 'MINE' },
      { source: 'default', value: 'MINE' },
    ]);
    expect(security.slack[0]).toEqual({ source: 'locked', value: 'NONE' });
    expect(security.slack.filter((step) => step.source === 'locked')).toHaveLength(1);
    // Another category, or none: the security lock does not apply; the all-categories one does.
    expect(resolveChannels({ ...base, category: 'comment' }).source).toMatchObject({
      email: 'document:category',
      slack: 'locked',
    });
    expect(resolveChannels(base).source).toMatchObject({ email: 'document', slack: 'locked' });
  });

  test('a category id that names a property of every object finds nothing the policy did not set', () => {
    const input = { policy: FULL.policy, category: 'constructor', defaults: BUILT_IN_DEFAULTS };
    expect(layersOf(input, 'email').map((step) => step.source)).toEqual(['policy', 'default']);
  });
});

describe('a set of a locked channel', () => {
  const policy: Policy = {
    channels: { slack: { value: 'NONE', locked: true } },
    categories: { security: { label: 'Security', channels: { email: { value: 'ALL', locked: true } } } },
  };
  const refusal = (run: () => void) => {
    try {
      run();
    } catch (error) {
      return error as ApiError;
    }
    return undefined;
  };

  test('is FAILED_PRECONDITION naming every locked channel it names', () => {
    const error = refusal(() => assertUnlocked(policy, { email: 'NONE', slack: 'ALL', inbox: 'ALL' }, 'security'));
    expect(error).toBeInstanceOf(ApiError);
    expect([error?.status, error?.httpStatus, error?.details]).toEqual([
      'FAILED_PRECONDITION',
      400,
      { lockedChannels: ['email', 'slack'] },
    ]);
  });

  test('without a category, only the all-categories locks count; unlocked channels pass', () => {
    expect(refusal(() => assertUnlocked(policy, { email: 'NONE' }, undefined))).toBeUndefined();
    expect(refusal(() => assertUnlocked(policy, { email: 'NONE' }, 'comment'))).toBeUndefined();
    expect(refusal(() => assertUnlocked(policy, { slack: 'ALL' }, undefined))?.details).toEqual({
      lockedChannels: ['slack'],
    });
    expect(refusal(() => assertUnlocked({}, { slack: 'ALL' }, 'security'))).toBeUndefined();
  });
});
