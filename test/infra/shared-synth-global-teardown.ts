import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';

/** Jest global teardown: stops the shared syntheses that still run, and removes their folder. */
export default async function stopSharedSynths(): Promise<void> {
  const shared = (globalThis as { sharedSynths?: { children: ChildProcess[]; dir: string } }).sharedSynths;
  if (!shared) return;
  const running = shared.children.filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(
    running.map((child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      return exited;
    }),
  );
  await rm(shared.dir, { recursive: true, force: true });
}
