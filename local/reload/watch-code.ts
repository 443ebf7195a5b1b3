import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Watches the folders of the functions' code (functions/, shared/, service/) and calls
 * `onChange` once per burst of saves (an editor's save is often several events: a temporary
 * file, a rename, a write). Nothing else is watched, so a change under tools/, docs/, test/ or
 * .data/ is not even seen.
 *
 * One Node fs.watch per directory, not one recursive watch: on Linux a recursive watch follows
 * each file, and loses one that an editor saved by writing a new file and renaming it over the
 * old (later saves of it went unseen). A directory's watch sees every name in it, replaced or not.
 */

/** The functions' code: what the handlers import, directly or not. */
export const CODE_FOLDERS = ['functions', 'shared', 'service'];
/** Source files; not an editor's swap, backup or lock file, nor one hidden. */
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|json)$/;
const NOT_SOURCE = /(^|\/)\.|~$|\.(swp|swx|tmp|bak)$/;
/** Quiet time that ends a burst: short, since it counts in the time from save to answer. */
const DEFAULT_SETTLE_MS = 30;

export interface CodeWatcher {
  close(): void;
}

export const watchCode = ({
  root,
  onChange,
  folders = CODE_FOLDERS,
  settleMs = DEFAULT_SETTLE_MS,
  log = () => {},
}: {
  root: string;
  /** The changed files, relative to `root`, once a burst of events has settled. */
  onChange: (files: string[]) => void;
  folders?: string[];
  settleMs?: number;
  log?: (line: string) => void;
}): CodeWatcher => {
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const files = [...changed].sort();
    changed.clear();
    if (files.length) onChange(files);
  };
  const watchers = new Map<string, FSWatcher>();
  const isDirectory = (path: string) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  };
  const saw = (file: string) => {
    changed.add(file);
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, settleMs);
  };
  const unwatch = (dir: string) => {
    watchers.get(dir)?.close();
    watchers.delete(dir);
  };
  const watchTree = (dir: string) => {
    if (watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        if (!name) return;
        const path = join(dir, name.toString());
        const file = relative(root, path);
        if (NOT_SOURCE.test(file)) return;
        // A folder that appears (created, moved in, checked out) is watched too, and counts as a change.
        if (!watchers.has(path) && isDirectory(path)) {
          watchTree(path);
          saw(`${file}/`);
        } else if (SOURCE.test(file)) saw(file);
        if (!isDirectory(dir)) unwatch(dir);
      });
    } catch (error) {
      log(`[dev] cannot watch ${relative(root, dir)}/: ${(error as Error).message}`);
      return;
    }
    // A folder removed (or too many watches): said once; the twin keeps serving.
    watcher.on('error', (error) => {
      unwatch(dir);
      if (isDirectory(dir)) log(`[dev] stopped watching ${relative(root, dir)}/: ${error.message}`);
    });
    watchers.set(dir, watcher);
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // Gone since: its watcher reports it.
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) watchTree(join(dir, entry.name));
    }
  };
  for (const folder of folders) watchTree(join(root, folder));
  return {
    close() {
      if (timer) clearTimeout(timer);
      for (const dir of [...watchers.keys()]) unwatch(dir);
    },
  };
};
