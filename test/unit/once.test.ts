import { describe, expect, test } from '@jest/globals';
import { ROUTES } from '#service/routes.js';
import { once } from '#shared/platform/once.js';

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
});
