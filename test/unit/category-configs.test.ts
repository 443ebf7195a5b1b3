import { describe, expect, test } from '@jest/globals';
import { categoryConfigs } from '#shared/preferences/layers.js';

describe("config/get's categories", () => {
  test('come in category id order, whatever order the stored map has', () => {
    // As DynamoDB may hand a map back: in no particular order.
    const stored = {
      security: { config: { email: 'ALL' as const } },
      comments: { config: { inbox: 'NONE' as const } },
      'mentions-2': { config: { slack: 'MINE' as const } },
      mentions: { config: { slack: 'NONE' as const } },
    };
    expect(Object.keys(categoryConfigs(stored))).toEqual(['comments', 'mentions', 'mentions-2', 'security']);
    expect(JSON.stringify(categoryConfigs(stored))).toBe(
      '{"comments":{"inbox":"NONE"},"mentions":{"slack":"NONE"},"mentions-2":{"slack":"MINE"},"security":{"email":"ALL"}}',
    );
  });

  test('leave out a layer that holds no value', () => {
    expect(categoryConfigs({ empty: { config: {} }, kept: { config: { inbox: 'ALL' } } })).toEqual({
      kept: { inbox: 'ALL' },
    });
  });
});
