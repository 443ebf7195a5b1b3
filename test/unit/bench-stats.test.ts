import { describe, expect, test } from '@jest/globals';
import { FULL_VCPU_MB, projectedSeconds, vcpuShare } from '../bench/lambda-cpu.js';
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

// The largest request's goal is read from this projection: CPU measured here, scaled to the
// share of a vCPU the deployed memory buys.
describe('projection of CPU time to a Lambda function', () => {
  test('below 1,769 MB a function gets that fraction of a vCPU, so CPU time stretches by its inverse', () => {
    expect(vcpuShare(512)).toBeCloseTo(512 / 1769);
    expect(projectedSeconds(1, 512)).toBeCloseTo(1769 / 512);
    expect(projectedSeconds(2, 1024)).toBeCloseTo((2 * 1769) / 1024);
  });

  test('at or above 1,769 MB one thread runs at the measured speed', () => {
    expect(projectedSeconds(3, FULL_VCPU_MB)).toBe(3);
    expect(projectedSeconds(3, 4096)).toBe(3);
  });
});
