/**
 * Long work shows it is alive: every `everyMs` a line `[bench] <label>: <status>, <n> s` goes
 * to stderr (the report itself goes to stdout), until stopped.
 */
export const progress = (label: string, status: () => string = () => 'running', everyMs = 5_000) => {
  const started = performance.now();
  const timer = setInterval(() => {
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    process.stderr.write(`[bench] ${label}: ${status()}, ${seconds} s\n`);
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
};
