import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

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
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'shared-synth-main.ts'), dir, name],
      { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', log, log] },
    );
    closeSync(log);
    // A synthesis that dies without a word (killed, out of memory) still gives the waiting files
    // an answer rather than their timeout.
    child.on('exit', (code, signal) => {
      if (existsSync(files.result)) return;
      const error = `The shared synthesis exited (${signal ?? `code ${code}`}) without a result: see ${files.log}`;
      writeFileSync(files.result, JSON.stringify({ ok: false, error }));
    });
    return child;
  });
  (globalThis as { sharedSynths?: { children: ChildProcess[]; dir: string } }).sharedSynths = { children, dir };
}
