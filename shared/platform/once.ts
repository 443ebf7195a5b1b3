/**
 * A value built on its first use and kept. For zod schemas that most functions importing their
 * module never parse: what a route answers (only the tools and the tests read it, no function
 * checks its own answer), and the schedule and policy schemas (parsed by the routes that set them
 * and the preference page). Building a zod schema is cold-start CPU on the path to a function's
 * first answer (docs/development.md, Schemas a function builds).
 */
export const once = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
