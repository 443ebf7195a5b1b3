import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Reads until `check` holds or `ms` has passed, and answers the last value read: the test's own
 * assertion on it then says what was wrong. For what the twin does after an answer (streams,
 * queues, events).
 */
export const eventually = async <T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 30_000): Promise<T> => {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await sleep(100);
    value = await read();
  }
  return value;
};
