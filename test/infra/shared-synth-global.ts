import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

/** What the global teardown (test/infra/shared-synth-global-teardown.ts) finds. */
export interface SharedSynths {
  dir: string;
  /** Stops the syntheses that still run, with the processes they started; resolves once they have exited. */
  stop: () => Promise<void>;
}

/**
 * Jest global setup of the stack project: each stage the test files read is synthesized once
 * for the run (test/infra/synth.ts, `sharedSynth`), instead of once per file. Each synthesis runs
 * in a child process and is not awaited: they work while Jest runs the other files, and a file
 * that needs one waits for its result file.
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
  const children = SHARED_SYNTH_NAMES.map((name) => {
    const files = sharedSynthFiles(dir, name);
    mkdirSync(dirname(files.log), { recursive: true });
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
  });
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
