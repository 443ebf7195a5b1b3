import { rm } from 'node:fs/promises';
import type { SharedSynths } from './shared-synth-global.js';

/** Jest global teardown: stops the shared syntheses that still run, and removes their folder. */
export default async function stopSharedSynths(): Promise<void> {
  const shared = (globalThis as { sharedSynths?: SharedSynths }).sharedSynths;
  if (!shared) return;
  await shared.stop();
  await rm(shared.dir, { recursive: true, force: true });
}
