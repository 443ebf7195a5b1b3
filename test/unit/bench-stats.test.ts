import { describe, expect, test } from '@jest/globals';
import { median, percentile } from '../bench/stats.js';

// The benchmark report's goals are read from these; a biased median once made an even number
// of rounds report the lower of the two middle ratios.
describe('benchmark statistics', () => {
  test('median of an odd count is the middle value, in any order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([0.9, 0.7, 1.1, 0.8, 1.0])).toBe(0.9);
  });

  test('median of an even count is the mean of the two middle values', () => {
    expect(median([0.78, 0.89, 0.75, 1.15])).toBeCloseTo(0.835);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  test('median and percentile of nothing are NaN', () => {
    expect(median([])).toBeNaN();
    expect(percentile([], 90)).toBeNaN();
  });

  test('percentile is nearest-rank', () => {
    const values = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(values, 90)).toBe(18);
    expect(percentile(values, 100)).toBe(20);
    expect(percentile(values, 0)).toBe(1);
  });
});
