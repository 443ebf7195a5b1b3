import { readdirSync } from 'node:fs';
import { describe, expect, jest, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { handlerEntryOf, ROUTES } from '#service/routes.js';
import { setUnitTestEnv } from '../support/test-env.js';

// A function builds at load the schemas it parses and nothing of what its route answers: a
// route's `result` is built on first use (shared/platform/once.ts), and so is any schema only an
// answer uses. Each handler is loaded alone in a fresh module registry while every zod schema
// built is recorded (zod defines `_zod` on each one); its route's result is then built, and a
// part of it that already existed was built too early, unless its request holds it or it is a
// word of the API's vocabulary (the schemas shared/api/ exports, built with their module).

setUnitTestEnv();

const VOCABULARY_MODULES = readdirSync(`${REPO_ROOT}/shared/api`)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `#shared/api/${file.replace(/\.ts$/, '.js')}`);

/** The schemas a schema is made of, itself included (object shapes, items, options, wrappers, pipes). */
const partsOf = (root: unknown): Set<object> => {
  const found = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || found.has(value)) return;
    if ('_zod' in value) {
      found.add(value);
      visit((value as { _zod: { def: unknown } })._zod.def);
      return;
    }
    for (const child of Array.isArray(value) ? value : Object.values(value)) visit(child);
  };
  visit(root);
  return found;
};

interface Loaded {
  /** Schemas built while the handler loaded. */
  atLoad: number;
  /** Of those, the parts of the route's answer that neither its request nor the vocabulary holds. */
  answerOnly: number;
  resultRootAtLoad: boolean;
}

const load = async (operationId: string, entry: string): Promise<Loaded> => {
  const built = new Set<object>();
  const defineProperty = Object.defineProperty;
  let loaded: Loaded | undefined;
  await jest.isolateModulesAsync(async () => {
    Object.defineProperty = <T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor & ThisType<unknown>): T => {
      if (key === '_zod' && typeof target === 'object' && target !== null) built.add(target);
      return defineProperty(target, key, descriptor);
    };
    try {
      await import(`../../${entry.replace(/\.ts$/, '.js')}`);
    } finally {
      Object.defineProperty = defineProperty;
    }
    const { ROUTES: isolated } = await import('#service/routes.js');
    const route = isolated.find((candidate) => candidate.operationId === operationId);
    if (!route) throw new Error(`no route ${operationId}`);
    const allowed = partsOf(route.request);
    for (const module of VOCABULARY_MODULES) {
      for (const value of Object.values(await import(module))) {
        if (typeof value === 'object' && value !== null && '_zod' in value) allowed.add(value);
      }
    }
    const result = route.result();
    loaded = {
      atLoad: built.size,
      answerOnly: [...partsOf(result)].filter((part) => built.has(part) && !allowed.has(part)).length,
      resultRootAtLoad: built.has(result),
    };
  });
  if (!loaded) throw new Error(`${entry} did not load`);
  return loaded;
};

describe('schemas a function builds when it loads', () => {
  test.each(ROUTES.map((route) => [route.operationId, handlerEntryOf(route)]))(
    '%s: none that only its answer uses',
    async (operationId, entry) => {
      const loaded = await load(operationId, entry);
      expect(loaded.atLoad).toBeGreaterThan(0);
      expect(loaded.resultRootAtLoad).toBe(false);
      expect(loaded.answerOnly).toBe(0);
    },
  );
});
