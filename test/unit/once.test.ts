import { describe, expect, test } from '@jest/globals';
import { ROUTES } from '#service/routes.js';
import { once } from '#shared/platform/once.js';
import { OPERATIONS } from '#tools/openapi/operations.js';

describe('values built on first use', () => {
  test('built at the first call, not before, and the same value after', () => {
    let builds = 0;
    const value = once(() => ({ built: ++builds }));
    expect(builds).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(builds).toBe(1);
  });

  test("a route's result schema is one schema however often it is asked for (the OpenAPI registry names it by identity)", () => {
    for (const route of ROUTES) expect(route.result()).toBe(route.result());
  });

  test("an operation's id still tells its request and its built result (a type check: tsc fails otherwise)", () => {
    type SetPolicy = Extract<(typeof OPERATIONS)[number], { operationId: 'setPolicy' }>;
    const id: SetPolicy['operationId'] = 'setPolicy';
    const operation = OPERATIONS.find((candidate): candidate is SetPolicy => candidate.operationId === id);
    expect(operation?.request.safeParse({ organizationId: 'o', policy: {} }).success).toBe(true);
    expect(operation?.result.safeParse({ version: 1, updatedAt: '2026-11-26T00:00:00Z' }).success).toBe(true);
  });
});
