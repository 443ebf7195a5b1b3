import { describe, expect, test } from '@jest/globals';
import * as z from 'zod/mini';
import { resetConfigRequest } from '#shared/preferences/routes/reset-config.js';
import { resolveConfigRequest } from '#shared/preferences/routes/resolve-config.js';
import { userMap } from '#shared/preferences/user-map.js';

const messages = (schema: z.ZodMiniType, data: unknown): string[] => {
  const result = z.safeParse(schema, data);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};
const ids = (count: number) => Array.from({ length: count }, (_, i) => `u${i}`);

describe('config resolve request', () => {
  const valid = { organizationId: 'o', documentId: 'd', userIds: ['a'] };

  test('accepts the required fields, with or without an activity', () => {
    expect(messages(resolveConfigRequest, valid)).toEqual([]);
    expect(messages(resolveConfigRequest, { ...valid, activity: {} })).toEqual([]);
    expect(
      messages(resolveConfigRequest, { ...valid, userIds: ids(1000), activity: { involvedUserIds: ids(1000) } }),
    ).toEqual([]);
    expect(messages(resolveConfigRequest, { ...valid, activity: { involvedUserIds: [] } })).toEqual([]);
  });

  test('names each broken rule', () => {
    expect(messages(resolveConfigRequest, { organizationId: 'o', userIds: ['a'] })).toEqual(['documentId is required']);
    expect(messages(resolveConfigRequest, { ...valid, userIds: [] })).toEqual(['userIds must have at least 1 entry']);
    expect(messages(resolveConfigRequest, { ...valid, userIds: ids(1001) })).toEqual([
      'userIds must have at most 1000 entries',
    ]);
    expect(messages(resolveConfigRequest, { ...valid, activity: { involvedUserIds: ids(1001) } })).toEqual([
      'activity.involvedUserIds must have at most 1000 entries',
    ]);
    expect(messages(resolveConfigRequest, { ...valid, activity: { involvedUserIds: [''] } })).toEqual([
      'involvedUserId must not be empty',
    ]);
    expect(messages(resolveConfigRequest, { ...valid, activity: 'x' })).toEqual(['activity must be an object']);
    expect(messages(resolveConfigRequest, { ...valid, activity: { kind: 'mention' } })).toHaveLength(1);
    expect(messages(resolveConfigRequest, { ...valid, extra: 1 })).toHaveLength(1);
  });

  test('at: from 1970 to before 9999, so that every deliverAt keeps a four-digit year', () => {
    const bound = 'at must be from 1970-01-01T00:00:00Z to before 9999-01-01T00:00:00Z';
    for (const at of ['1970-01-01T00:00:00Z', '9998-12-31T23:59:59Z', '2026-11-26T10:00:00+14:00']) {
      expect(messages(resolveConfigRequest, { ...valid, at })).toEqual([]);
    }
    for (const at of ['1969-12-31T23:59:59Z', '0000-01-01T00:00:00+14:00', '9999-12-31T23:59:59Z']) {
      expect(messages(resolveConfigRequest, { ...valid, at })).toEqual([bound]);
    }
    // Not an instant at all (a leap second, an offset past 23:59): the format says so, alone.
    for (const at of ['2026-12-31T23:59:60Z', '2026-12-31T10:00:00+24:00', 'tomorrow']) {
      expect(messages(resolveConfigRequest, { ...valid, at })).toEqual([
        'at must be an ISO-8601 instant with seconds and a UTC offset or Z, such as 2026-03-29T08:00:00Z',
      ]);
    }
  });
});

describe('config reset request', () => {
  const valid = { organizationId: 'o', userIds: ['a'] };

  test('documents and channels are optional', () => {
    expect(messages(resetConfigRequest, valid)).toEqual([]);
    expect(messages(resetConfigRequest, { ...valid, documentIds: ['d'], channels: ['inbox', 'slack'] })).toEqual([]);
  });

  test('channels: a non-empty list of distinct channel names', () => {
    expect(messages(resetConfigRequest, { ...valid, channels: [] })).toEqual([
      'channels must name at least 1 of inbox, email, slack when present',
    ]);
    expect(messages(resetConfigRequest, { ...valid, channels: ['inbox', 'inbox'] })).toEqual([
      'channels must not repeat a channel',
    ]);
    expect(messages(resetConfigRequest, { ...valid, channels: ['sms'] })).toEqual([
      'channels entries must be one of inbox, email, slack',
    ]);
    expect(messages(resetConfigRequest, { ...valid, documentIds: [] })).toEqual([
      'documentIds must have at least 1 entry when present',
    ]);
  });
});

describe('response maps keyed by user id', () => {
  test('hold __proto__ and constructor as own keys that JSON keeps', () => {
    const map = userMap([
      ['__proto__', 1],
      ['constructor', 2],
    ]);
    expect(JSON.parse(JSON.stringify(map))).toEqual(JSON.parse('{"__proto__":1,"constructor":2}'));
    expect(Object.keys(JSON.parse(JSON.stringify(map)))).toEqual(['__proto__', 'constructor']);
    // What a plain assignment does instead: no own key, the user is lost.
    const plain: Record<string, number> = {};
    const key = '__proto__';
    plain[key] = 1;
    expect(JSON.stringify(plain)).toBe('{}');
  });
});
