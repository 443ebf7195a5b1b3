import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIG_KEYS } from '#infra/stage-settings.js';
import { shellQuote } from '#local/shell-env.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { USAGE as CREDENTIALS_USAGE } from '#tools/credentials/command.js';
import { USAGE as INSPECT_USAGE } from '#tools/inspect/command.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/*
 * The shell examples of README.md and docs/*.md are run, so the documentation cannot drift
 * from the service. Conventions (also stated in the docs):
 *
 * - A fence ```sh (or ```bash) is run with `bash -euo pipefail`, and again with zsh (the default
 *   shell of many laptops) in the same strict mode, against a local service on a scratch data
 *   directory, after sourcing the env.sh that service wrote there: BASE_URL, API_KEY,
 *   AUTH_TOKEN and DATA_DIR come from that file alone, as they do for a developer who pastes
 *   the banner's line. The repository is the working directory. It must exit 0.
 * - `# => text` lines show expected output: consecutive ones are joined, and the block's
 *   stdout must contain that text, whitespace ignored.
 * - ```sh aws (needs an AWS account) and ```sh no-run (installs, starts a long-running
 *   process, or changes the checkout) are not run. Every block, run or not, must parse
 *   (`bash -n`), may only use npm scripts that package.json defines, `-c key=` context keys
 *   that infra/stage-settings.ts defines, and options that `npm start`,
 *   `npm run credentials` and `npm run inspect` know.
 *
 * Relative links in the same files must point at files inside the repository (and headings,
 * for `#anchor` links).
 */

const DOC_FILES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const TAGS = ['', 'aws', 'no-run'] as const;

/** What the banner's line (and env.sh) sets: all the examples may rely on. */
const SHELL_ENV_NAMES = ['BASE_URL', 'API_KEY', 'AUTH_TOKEN', 'DATA_DIR'] as const;
/** The variables a terminal has before anything is pasted (JAVA_HOME where Java is found through it). */
const TERMINAL_ENV = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'JAVA_HOME'];

interface Block {
  file: string;
  line: number;
  tag: string;
  code: string;
}

const readDoc = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

const blocksOf = (file: string): Block[] => {
  const blocks: Block[] = [];
  const lines = readDoc(file).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh|bash)\b\s*(.*)$/.exec(lines[i] as string);
    if (!open) {
      // Skip other fences whole, so a ``` inside them is not taken for an opening.
      if (/^```/.test(lines[i] as string)) while (++i < lines.length && !/^```\s*$/.test(lines[i] as string));
      continue;
    }
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^```\s*$/.test(lines[i] as string)) body.push(lines[i] as string);
    blocks.push({ file, line: start + 1, tag: (open[2] ?? '').trim(), code: `${body.join('\n')}\n` });
  }
  return blocks;
};

const BLOCKS = DOC_FILES.flatMap(blocksOf);
const RUN = BLOCKS.filter((block) => block.tag === '');
const nameOf = (block: Block) => `${block.file}:${block.line}${block.tag ? ` (${block.tag})` : ''}`;

/** Consecutive `# => text` lines, joined: what stdout must contain. */
const expectationsOf = (code: string): string[] => {
  const expected: string[] = [];
  let continues = false;
  for (const line of code.split('\n')) {
    const match = /^\s*# => ?(.*)$/.exec(line);
    if (match && continues) expected[expected.length - 1] += match[1] as string;
    else if (match) expected.push(match[1] as string);
    continues = match !== null;
  }
  return expected;
};

const squeeze = (text: string) => text.replace(/\s+/g, '');

const run = promisify(execFile);

const SCRIPTS = new Set(Object.keys(JSON.parse(readDoc('package.json')).scripts as Record<string, string>));
const NPM_START_SOURCE = readDoc('local/main.ts');

/** Commands with their `\` continuations joined, comments dropped. */
const logicalLines = (code: string): string[] =>
  code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''));

const problemsOf = (block: Block): string[] => {
  const problems: string[] = [];
  for (const line of logicalLines(block.code)) {
    for (const match of line.matchAll(/\bnpm\s+(run(?:-script)?\s+)?([a-z][\w:-]*)/g)) {
      const [, isRun, name = ''] = match;
      if (!isRun && ['install', 'ci', 'exec'].includes(name)) continue;
      if (!SCRIPTS.has(name)) problems.push(`npm ${isRun ? 'run ' : ''}${name}: no such script in package.json`);
    }
    for (const match of line.matchAll(/(?:^|\s)(?:-c|--context)\s+([^\s=]+)=/g)) {
      const key = match[1] as string;
      if (!(CONFIG_KEYS as string[]).includes(key)) problems.push(`-c ${key}: not a key of infra/stage-settings.ts`);
    }
    const options = (command: RegExp, known: string, what: string) => {
      const at = line.search(command);
      if (at < 0) return;
      for (const option of line.slice(at).matchAll(/\s(--[a-z][\w-]*)/g)) {
        if (!known.includes(`${option[1]} `) && !known.includes(`${option[1]}\n`)) {
          problems.push(`${what}: unknown option ${option[1]}`);
        }
      }
    };
    options(/\bnpm run credentials --\s/, `${CREDENTIALS_USAGE}\n`, 'npm run credentials');
    options(/\bnpm run inspect --\s/, `${INSPECT_USAGE}\n`, 'npm run inspect');
    options(/\bnpm start --\s/, NPM_START_SOURCE, 'npm start');
  }
  return problems;
};

describe('every shell block parses and names real scripts, context keys and options', () => {
  test('the documentation has shell examples, and only known fence tags', () => {
    expect(RUN.length).toBeGreaterThan(5);
    expect(BLOCKS.filter((block) => !(TAGS as readonly string[]).includes(block.tag)).map(nameOf)).toEqual([]);
  });

  test.each(BLOCKS.map((block) => [nameOf(block), block] as const))('%s', async (_name, block) => {
    await expect(run('bash', ['-n', '-c', block.code])).resolves.toBeDefined();
    expect(problemsOf(block)).toEqual([]);
  });
});

// GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes.
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (file: string): Set<string> =>
  new Set(
    readDoc(file)
      .replace(/^```[\s\S]*?^```/gm, '')
      .split('\n')
      .flatMap((line) => {
        const heading = /^#{1,6}\s+(.*)$/.exec(line);
        return heading ? [slug((heading[1] as string).replace(/`/g, ''))] : [];
      }),
  );

describe('links', () => {
  test.each(DOC_FILES)('%s links only to files (and headings) in the repository', (file) => {
    const text = readDoc(file).replace(/^```[\s\S]*?^```/gm, '');
    const broken: string[] = [];
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string;
      if (/^(https?|mailto):/.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      // A leading `/` is the repository's root, as GitHub renders it.
      const resolved = !path
        ? join(REPO_ROOT, file)
        : path.startsWith('/')
          ? join(REPO_ROOT, path)
          : resolve(REPO_ROOT, dirname(file), path);
      const inside = !relative(REPO_ROOT, resolved).startsWith('..');
      if (!inside || !existsSync(resolved)) broken.push(target);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(relative(REPO_ROOT, resolved)).has(anchor)) {
        broken.push(target);
      }
    }
    expect(broken).toEqual([]);
    // Nothing outside the repository: the README sits at its root, so `../` leaves it.
    expect(readDoc(file)).not.toMatch(file === 'README.md' ? /\.\.\/|CONTRACT\.md/ : /CONTRACT\.md|\.\.\/\.\./);
    // Scripts named in prose too, e.g. `npm run bench`.
    const unknown = [...readDoc(file).matchAll(/\bnpm run ([a-z][\w:-]*)/g)]
      .map((match) => match[1] as string)
      .filter((name) => !SCRIPTS.has(name));
    expect(unknown).toEqual([]);
  });
});

describe('examples run against the local service', () => {
  let service: LocalService;
  let dataDir: string;
  let shellEnvFile: string;

  beforeAll(async () => {
    // On disk, so that `npm run credentials` examples find the running service through DATA_DIR.
    dataDir = await mkdtemp(join(tmpdir(), 'docs-examples-'));
    service = await startLocalService({ inMemory: false, dataDir });
    shellEnvFile = service.shellEnvFile as string;
  });

  test("the service's env.sh holds the banner's line, with the four variables", async () => {
    expect(shellEnvFile).toBe(join(dataDir, 'env.sh'));
    const text = await readFile(shellEnvFile, 'utf8');
    expect(text).toContain(`${service.exportLine}\n`);
    for (const name of SHELL_ENV_NAMES) expect(service.exportLine).toContain(` ${name}=`);
  });
  afterAll(async () => {
    await service?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  // zsh, too: several names a bash user assigns freely (status, history, path) are special there.
  const SHELLS: [string, string[]][] = [
    ['bash', ['-euo', 'pipefail', '-c']],
    ['zsh', ['-euo', 'pipefail', '-c']],
  ];

  test.each(
    RUN.flatMap((block) =>
      SHELLS.map(([shell, args]) => [`${nameOf(block)} in ${shell}`, block, shell, args] as const),
    ),
  )(
    '%s',
    async (_name, block, shell, args) => {
      // What a fresh terminal has, then the file: an example that needs anything else fails (`-u`).
      const env = Object.fromEntries(
        TERMINAL_ENV.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])),
      );
      const result = await run(shell, [...args, `source ${shellQuote(shellEnvFile)}\n${block.code}`], {
        cwd: REPO_ROOT,
        env,
        timeout: 60_000,
      }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
        throw new Error(`exit ${error.code}\n--- stdout\n${error.stdout}\n--- stderr\n${error.stderr}`);
      });
      for (const expected of expectationsOf(block.code)) expect(squeeze(result.stdout)).toContain(squeeze(expected));
    },
    90_000,
  );
});
