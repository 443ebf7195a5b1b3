import { constants } from 'node:fs';
import { chmod, mkdir, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The twin's data is its owner's alone: the tables (credentials among them), queued messages,
 * events. Its directories are 0700 and its files 0600, whatever the umask, and a directory or
 * file left looser by an older twin is tightened on start.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) as 0700, or tightens it to 0700. */
export const privateDirectory = async (dir: string): Promise<void> => {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
};

/**
 * Sets every regular file directly in `dir` to 0600. A symbolic link is not followed (it may
 * point anywhere); the file is opened with O_NOFOLLOW and changed through its descriptor, so it
 * cannot be swapped for a link in between.
 */
export const tightenFiles = async (dir: string): Promise<void> => {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    try {
      const handle = await open(join(dir, entry.name), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      try {
        if ((await handle.stat()).isFile()) await handle.chmod(PRIVATE_FILE_MODE);
      } finally {
        await handle.close();
      }
    } catch (error) {
      // Gone since the listing, replaced by a link, or unreadable even to us: not world-readable.
      if (!['ENOENT', 'ELOOP', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
};

/**
 * Runs `start` (a spawn) with umask 077, so that what the child creates is 0600 / 0700: the
 * child inherits the umask at spawn, and nothing else runs in between. Where the umask cannot be
 * set (a worker thread) the child keeps the process's: its directory, 0700, still guards it.
 */
export const withPrivateUmask = <T>(start: () => T): T => {
  let previous: number | undefined;
  try {
    previous = process.umask(0o077);
  } catch {
    previous = undefined;
  }
  try {
    return start();
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
};
