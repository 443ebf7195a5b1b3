import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { exportLine, type ShellEnv, shellQuote, writeShellEnv } from '#local/shell-env.js';

// The banner's line and env.sh, read back by real shells: every value must arrive byte for
// byte, in bash and zsh, pasted into an interactive shell (history expansion on) or sourced
// under `set -euo pipefail`, whatever a fixed LOCAL_API_KEY, LOCAL_AUTH_TOKEN or a data
// directory's name holds.
const run = promisify(execFile);
const SHELLS = ['bash', 'zsh'] as const;
/** Interactive without start-up files: history expansion is on, as in a terminal. */
const INTERACTIVE: Record<(typeof SHELLS)[number], string[]> = { bash: ['--norc', '-i'], zsh: ['-f', '-i'] };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shell-env-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NAMES = ['BASE_URL', 'API_KEY', 'AUTH_TOKEN', 'DATA_DIR'] as const;
/** Prints the four variables, NUL-separated, into `out` (a file: an interactive shell's output holds its prompts). */
const dump = (out: string) => `printf '%s\\0' ${NAMES.map((n) => `"$${n}"`).join(' ')} > ${shellQuote(out)}`;
const expected = (env: ShellEnv) => `${[env.baseUrl, env.apiKey, env.token, env.dataDir ?? ''].join('\0')}\0`;

const HOSTILE_KEYS = [
  "ak_it's",
  'ak_!!',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell's expansion, meant to stay text.
  'ak_$(touch${IFS}pwned)',
  'ak_`id`',
  'ak_"quoted"',
  'ak_\\back\\slash',
  'ak_~user',
  '=ak',
  '^ak',
  '#ak',
  'ak_*?[x]',
  'ak_%1;|&<>{}',
];

describe('shellQuote', () => {
  test('plain values stay as they are; others are quoted', () => {
    expect(shellQuote('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(shellQuote('ak_0123abc')).toBe('ak_0123abc');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('a\nb')).toMatch(/^\$'[^\n]*'$/);
  });

  test('in memory the line names no DATA_DIR', () => {
    const line = exportLine({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'ak_1', token: 'st_1', dataDir: undefined });
    expect(line).toBe('export BASE_URL=http://127.0.0.1:3000 API_KEY=ak_1 AUTH_TOKEN=st_1');
  });
});

describe.each(SHELLS)('%s', (shell) => {
  test.each(HOSTILE_KEYS)('a pasted line sets the key %s as it is, and runs nothing', async (apiKey) => {
    const env: ShellEnv = {
      baseUrl: 'http://127.0.0.1:3000',
      apiKey,
      token: `st_${apiKey}`,
      dataDir: join(dir, 'data dir'),
    };
    const out = join(dir, `${shell}-pasted.bin`);
    const line = exportLine(env);
    expect(line).not.toContain('\n');
    const child = execFile(shell, INTERACTIVE[shell], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    child.stdin?.end(`${line}\n${dump(out)}\nexit\n`);
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await readFile(out, 'utf8')).toBe(expected(env));
    await expect(stat(join(dir, 'pwned'))).rejects.toThrow();
  });

  test('the sourced file sets a data directory named with a newline, quotes and a non-ASCII letter', async () => {
    const env: ShellEnv = {
      baseUrl: 'http://[::1]:3000',
      apiKey: "ak_'!$x",
      token: 'st_é?',
      dataDir: join(dir, "new\nline 'é' $HOME \u009b"),
    };
    const file = join(dir, `${shell}-env.sh`);
    await writeShellEnv(file, env);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
    const out = join(dir, `${shell}-sourced.bin`);
    await run(shell, ['-euo', 'pipefail', '-c', `source ${shellQuote(file)}\n${dump(out)}`], {
      env: { PATH: process.env.PATH },
    });
    expect(await readFile(out, 'utf8')).toBe(expected(env));
  });
});
