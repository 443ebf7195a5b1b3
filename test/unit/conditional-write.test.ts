import { expect, test } from '@jest/globals';
import { conditional, conditionalOrOwn, ifConditionHolds } from '#shared/platform/conditional-write.js';

const conditionFailed = () =>
  Promise.reject(Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' }));
const throttled = () => Promise.reject(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));

test('a write whose condition held answers its output (or true); one whose condition failed, undefined (or false)', async () => {
  await expect(ifConditionHolds(async () => ({ Attributes: { a: 1 } }))).resolves.toEqual({ Attributes: { a: 1 } });
  await expect(ifConditionHolds(conditionFailed)).resolves.toBeUndefined();
  await expect(conditional(async () => undefined)).resolves.toBe(true);
  await expect(conditional(conditionFailed)).resolves.toBe(false);
});

test('any other failure is thrown, not taken for a failed condition', async () => {
  await expect(ifConditionHolds(throttled)).rejects.toThrow('slow down');
  await expect(conditional(throttled)).rejects.toThrow('slow down');
  await expect(conditionalOrOwn(throttled, async () => true)).rejects.toThrow('slow down');
});

test("a failed condition is the caller's own earlier write when the read-back says so", async () => {
  await expect(conditionalOrOwn(conditionFailed, async () => true)).resolves.toBe(true);
  await expect(conditionalOrOwn(conditionFailed, async () => false)).resolves.toBe(false);
});
