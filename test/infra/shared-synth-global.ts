import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import type { SharedSynthName } from './shared-synth-files.js';

/** What the global teardown (test/infra/shared-synth-global-teardown.ts) finds. */
export interface SharedSynths {
  dir: string;
  /** Stops the syntheses that still run, with the processes they started; resolves once they have exited. */
  stop: () => Promise<void>;
}

/**
 * Jest global setup of the stack project: each stage the test files read is synthesized once
 * for the run (test/infra/synth.ts, `sharedSynth`), instead of once per file. The first file that
 * reads a stage asks for it with a file; this process then synthesizes it in a child process,
 * which works while Jest runs the other files, and every file that reads it waits for its result
 * file. A run of files that read none synthesizes none.
 *
 * Jest loads this file with Node's own loader, which cannot resolve the repository's `#infra/*.js`
 * imports to TypeScript: tsx loads the rest, and runs the syntheses.
 */
export default async function startSharedSynths(): Promise<void> {
  const { SHARED_SYNTH_ENV, SHARED_SYNTH_NAMES, sharedSynthFiles } = (await tsImport(
    './shared-synth-files.ts',
    import.meta.url,
  )) as typeof import('./shared-synth-files.js');
  const dir = mkdtempSync(join(tmpdir(), 'cdk-shared-'));
  process.env[SHARED_SYNTH_ENV] = dir;
  const start = (name: SharedSynthName) => {
    const files = sharedSynthFiles(dir, name);
    const log = openSync(files.log, 'w');
    // A process group of its own: stopping it stops the bundling commands it runs too, which
    // would otherwise write into the folder after its removal.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'shared-synth-main.ts'), dir, name],
      { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', log, log], detached: true },
    );
    closeSync(log);
    // A synthesis that dies without a result (killed, out of memory, a module that does not
    // load) still gives the waiting files an answer, with the end of its output (the folder is
    // removed after the run), rather than their timeout.
    child.on('exit', (code, signal) => {
      if (existsSync(files.result)) return;
      const output = readFileSync(files.log, 'utf8').split('\n').slice(-30).join('\n');
      const error = `It exited (${signal ?? `code ${code}`}) without a result. Its output ended:\n${output}`;
      writeFileSync(files.result, JSON.stringify({ ok: false, error }));
    });
    return child;
  };
  const children: ChildProcess[] = [];
  const asked = new Set<SharedSynthName>();
  for (const name of SHARED_SYNTH_NAMES) mkdirSync(dirname(sharedSynthFiles(dir, name).request), { recursive: true });
  // Jest's own process mostly waits (for its workers, or, running a file itself with
  // --runInBand, in the file's wait for the result), so it sees an ask within the interval.
  const watch = setInterval(() => {
    for (const name of SHARED_SYNTH_NAMES) {
      if (asked.has(name) || !existsSync(sharedSynthFiles(dir, name).request)) continue;
      asked.add(name);
      children.push(start(name));
    }
  }, 200);
  watch.unref();
  const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
  const kill = () => {
    for (const child of children.filter(running)) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Exited meanwhile.
      }
    }
  };
  const stop = async () => {
    clearInterval(watch);
    const exited = children.filter(running).map((child) => new Promise((resolve) => child.once('exit', resolve)));
    kill();
    await Promise.all(exited);
  };
  // Ctrl+C reaches the terminal's process group, which the syntheses have left: they stop with
  // the run, which then ends as it would have.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      kill();
      process.kill(process.pid, signal);
    });
  (globalThis as { sharedSynths?: SharedSynths }).sharedSynths = { dir, stop };
}
