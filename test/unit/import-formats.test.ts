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
    expect(mapped.unmapped).toEqual(['channel_types.sms', 'workflows']);
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
});
