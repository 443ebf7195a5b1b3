/**
 * A value built on its first use and kept. For the schemas of what a route answers: the tools
 * and the tests read them, no function does (none checks its own answer), and building a zod
 * schema is cold-start CPU, some 40 µs a node, on the path to every function's first answer.
 */
export const once = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
