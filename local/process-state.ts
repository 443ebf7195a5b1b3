import { existsSync, readFileSync } from 'node:fs';

/** Whether /proc describes processes here (Linux). */
export const HAS_PROC = existsSync('/proc/self/stat');

/**
 * Whether `pid` runs. On Linux /proc tells: a killed process whose parent died stays a zombie
 * until something reaps it (in a container, maybe never). Elsewhere: whether it exists (EPERM:
 * it does, as someone else's).
 */
export const isRunning = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && HAS_PROC) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
