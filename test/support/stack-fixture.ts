// Bundled by test/unit/stack-traces.test.ts as a function is: its stack must point here.
import '#shared/platform/stack-traces.js';

export const failHere = (): never => {
  throw new Error('thrown from the fixture');
};

const stackOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).stack ?? '';
  }
  return '';
};

process.stdout.write(
  JSON.stringify({
    own: stackOf(failHere),
    parse: stackOf(() => JSON.parse('{')),
  }),
);
