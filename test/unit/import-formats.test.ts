import { describe, expect, test } from '@jest/globals';
import { mapKnockLine, mapNovuLine } from '#shared/imports/formats.js';

// The knock and novu formats: a user's preferences as those products' APIs answer them, mapped to
// rows; what has no equivalent is named, not applied.

describe('knock', () => {
  test('channel types and categories map to channels and category layers; the rest is named', () => {
    const mapped = mapKnockLine({
      userId: 'user-1',
      preferenceSet: {
        id: 'default',
        channel_types: { email: true, in_app_feed: false, sms: false },
        categories: { marketing: false, transactional: { channel_types: { chat: true } } },
        workflows: { 'new-comment': false },
      },
    });
    expect(mapped.rows).toEqual([
      { userId: 'user-1', config: { email: 'ALL', inbox: 'NONE' } },
      { userId: 'user-1', category: 'marketing', config: { inbox: 'NONE', email: 'NONE', slack: 'NONE' } },
      { userId: 'user-1', category: 'transactional', config: { slack: 'ALL' } },
    ]);
    expect(mapped.unmapped).toEqual(['channel_types.sms', 'workflows.new-comment']);
  });

  test("Knock's nulls (keys never set) are absent: no error, nothing named", () => {
    const mapped = mapKnockLine({
      userId: 'user-1',
      preferenceSet: {
        __typename: 'PreferenceSet',
        id: 'default',
        channel_types: null,
        categories: { digest: { channel_types: { email: false }, conditions: null } },
        workflows: null,
        channels: null,
        commercial_subscribed: null,
      },
    });
    expect(mapped).toEqual({
      rows: [{ userId: 'user-1', category: 'digest', config: { email: 'NONE' } }],
      unmapped: [],
    });
  });

  test('conditions, single channels and the commercial flag are named, each workflow and channel by its key', () => {
    const condition = { variable: 'recipient.plan', operator: 'equal_to', argument: 'pro' };
    const mapped = mapKnockLine({
      userId: 'user-1',
      preferenceSet: {
        id: 'default',
        channel_types: { email: { conditions: [condition] } },
        categories: { billing: { conditions: [condition] } },
        workflows: { welcome: true, 'weekly-digest': { channel_types: { email: false } } },
        channels: { '2f3c8a52-3f6e-4a55-9d8e-2d8c2f2d9e11': false },
        commercial_subscribed: false,
      },
    });
    expect(mapped.rows).toEqual([]);
    expect(mapped.unmapped).toEqual([
      'channel_types.email',
      'categories.billing.conditions',
      'workflows.welcome',
      'workflows.weekly-digest',
      'channels.2f3c8a52-3f6e-4a55-9d8e-2d8c2f2d9e11',
      'commercial_subscribed',
    ]);
  });

  test('a line without a preference set is an error of its own', () => {
    expect(mapKnockLine({ userId: 'u' }).error).toBe('preferenceSet must be an object');
  });
});

describe('novu', () => {
  test('global channels map to channels; workflows are named, not applied', () => {
    const mapped = mapNovuLine({
      subscriberId: 'subscriber-123',
      preferences: {
        global: { enabled: true, channels: { email: false, in_app: true, chat: true, sms: false, push: true } },
        workflows: [{ enabled: true, channels: { email: true }, workflow: { identifier: 'weekly-newsletter' } }],
      },
    });
    expect(mapped.rows).toEqual([{ userId: 'subscriber-123', config: { email: 'NONE', inbox: 'ALL', slack: 'ALL' } }]);
    expect(mapped.unmapped).toEqual(['global.channels.sms', 'global.channels.push', 'workflows.weekly-newsletter']);
  });

  test('everything turned off globally is named; no workflows (null) names nothing', () => {
    const mapped = mapNovuLine({
      subscriberId: 's-1',
      preferences: { global: { enabled: false, channels: { email: false } }, workflows: null },
    });
    expect(mapped).toEqual({ rows: [{ userId: 's-1', config: { email: 'NONE' } }], unmapped: ['global.enabled'] });
  });
});
