import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from '@jest/globals';
import { readRunningServer } from '#local/data-dir.js';
import { isRunning } from '#local/process-state.js';
import { REPO_ROOT } from '#service/repository-root.js';

// `npm start` as a developer runs it (its own process): what it prints works as printed,
// and a signal stops it cleanly.
let child: ChildProcess | undefined;
const run = promisify(execFile);

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

const exited = (process: ChildProcess) =>
  new Promise<number | null>((resolve) => process.once('exit', (code) => resolve(code)));

/** A fixed credential full of what shells treat specially: the printed line must still set it as it is. */
const FIXED = { LOCAL_API_KEY: `ak_it's!$(x)\`y\`"z"`, LOCAL_AUTH_TOKEN: "st_~!!;'#" };

test('prints the URL, credential, a line to paste and a curl that work as printed in bash and zsh; SIGINT stops it with exit code 0', async () => {
  // In a terminal, as a developer runs it (util-linux's script gives it one): the banner shows
  // the token and the line to paste there only. The command is npm start's own (package.json),
  // exec included: a shell left waiting (dash, when SHELL is /bin/sh) dies of the Ctrl+C itself.
  const command = `exec '${process.execPath}' --import tsx local/main.ts --in-memory --port 0`;
  const started = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...FIXED },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child = started;
  let output = '';
  // A terminal ends its lines with CR LF.
  started.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString().replaceAll('\r', '');
  });
  started.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString().replaceAll('\r', '');
  });
  const deadline = Date.now() + 20_000;
  while (!output.includes('Ctrl+C stops it.')) {
    if (Date.now() > deadline || started.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const baseUrl = output.match(/on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] as string;
  expect(output).toContain(`x-service-api-key:    ${FIXED.LOCAL_API_KEY}\n`);
  expect(output).toContain('in memory (discarded on exit)');
  expect(output).toContain('paste this line (in memory: no DATA_DIR, and no file to source)');

  // The line to paste and the curl example, run as printed, in bash and in zsh.
  const lines = output.split('\n');
  const pasted = (lines[lines.findIndex((line) => line.includes('paste this line')) + 1] ?? '').trim();
  expect(pasted).toMatch(new RegExp(`^export BASE_URL=${baseUrl} API_KEY=.+ AUTH_TOKEN=.+$`));
  const tryAt = lines.indexOf('then try:');
  const curl = lines.slice(tryAt + 1, lines.indexOf('', tryAt)).join('\n');
  const shell = (name: string, script: string) =>
    run(name, ['-euo', 'pipefail', '-c', `${pasted}\n${script}`], { env: { PATH: process.env.PATH } });
  expect((await shell('bash', curl)).stdout).toContain('"status":"success"');
  const get = `curl -s "$BASE_URL/v2/notifications/config/get" -H 'content-type: application/json' \\
    -H "x-service-api-key: $API_KEY" -H "x-service-auth-token: $AUTH_TOKEN" \\
    -d '{"data":{"organizationId":"acme","userId":"alice","documentIds":["doc-1"]}}'`;
  const read = JSON.parse((await shell('zsh', get)).stdout) as { result: { data: { config: unknown }[] } };
  expect(read.result.data[0]?.config).toEqual({ email: 'NONE' });
  // The change, published through the EventBridge twin: one printed line.
  const eventDeadline = Date.now() + 20_000;
  while (!/^event {2}Notification Config Changed {2}\S+$/m.test(output) && Date.now() < eventDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(output.split('\n').filter((line) => line.startsWith('event '))).toEqual([
    expect.stringMatching(/^event {2}Notification Config Changed {2}\S+$/),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const requestLines = output.split('\n').filter((line) => /^(GET|POST) /.test(line));
  expect(requestLines).toEqual([
    expect.stringMatching(/^POST \/v2\/notifications\/config\/set 200 \d+ms$/),
    expect.stringMatching(/^POST \/v2\/notifications\/config\/get 200 \d+ms$/),
  ]);

  const exit = exited(started);
  // Ctrl+C in that terminal.
  started.stdin?.write('\x03');
  expect(await exit).toBe(0);
  expect(output).toContain('Stopped.');
});

/** Every process below `pid`, read from ps (Linux and macOS alike). */
const descendantsOf = async (pid: number): Promise<number[]> => {
  const { stdout } = await run('ps', ['-A', '-o', 'pid=,ppid=']);
  const children = new Map<number, number[]>();
  for (const line of stdout.trim().split('\n')) {
    const [own, parent] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(parent, [...(children.get(parent) ?? []), own]);
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const own of children.get(parent) ?? []) {
      found.push(own);
      visit(own);
    }
  };
  visit(pid);
  return found;
};

/** `npm start` on a data directory (the twin then runs a JVM of its own), once its banner is out. */
const npmStartOn = async (dataDir: string) => {
  const npm = spawn('npm', ['start', '--', '--data-dir', dataDir, '--port', '0'], {
    cwd: REPO_ROOT,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = npm;
  let output = '';
  npm.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 30_000;
  while (!output.includes('Ctrl+C stops it.')) {
    if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { npm, output: () => output, below: await descendantsOf(npm.pid as number) };
};

/** Those of `pids` still running after up to 15 s. */
const stillRunning = async (pids: number[]): Promise<number[]> => {
  const gone = Date.now() + 15_000;
  while (pids.some(isRunning) && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 100));
  return pids.filter(isRunning);
};

// A process manager, a script or an IDE signals npm alone, not the terminal's process group.
test.each(['SIGTERM', 'SIGINT'] as const)(
  '%s sent to the npm process alone stops the whole service, DynamoDB Local included',
  async (signal) => {
    // A data directory: the twin then runs a JVM of its own (in memory, tests share one).
    const dataDir = await mkdtemp(join(tmpdir(), 'npm-start-signal-'));
    const { npm, output, below } = await npmStartOn(dataDir);
    try {
      expect(below.length).toBeGreaterThanOrEqual(2); // the twin (node), the JVM
      const exit = exited(npm);
      npm.kill(signal);
      await exit;
      expect(await stillRunning(below)).toEqual([]);
      expect(output()).toContain('Stopped.');
    } finally {
      for (const pid of below.filter(isRunning)) process.kill(pid, 'SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  60_000,
);

// A twin busy with a large request may not take a signal for a while (its event loop runs the
// function): a process in between that force-kills an unresponsive child (tsx's CLI does, after
// 60 ms) would cut the request and skip the stop's saving. Frozen here, deterministically.
test('a stop that reaches the twin while it cannot answer still answers the request under way and stops cleanly', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'npm-start-frozen-'));
  const { npm, output, below } = await npmStartOn(dataDir);
  const twin = (await readRunningServer(dataDir))?.pid as number;
  try {
    const baseUrl = output().match(/on (http:\/\/127\.0\.0\.1:\d+)/)?.[1] as string;
    // The credential from the data directory: the banner shows the token to a terminal only.
    const saved = JSON.parse(await readFile(join(dataDir, 'local-credential.json'), 'utf8')) as Record<string, string>;
    const header = (name: string) => (name === 'x-service-api-key' ? saved.apiKey : saved.token) as string;
    // Its output is no terminal: no token in it, and where to find it.
    expect(output()).not.toContain(saved.token as string);
    expect(output()).toContain(`x-service-auth-token: in ${join(dataDir, 'env.sh')} (not printed`);
    const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    const body = JSON.stringify({
      data: { organizationId: 'acme', userIds: ids('u', 50), documentIds: ids('d', 4), config: { email: 'NONE' } },
    });
    const request = httpRequest(`${baseUrl}/v2/notifications/config/set`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-service-api-key': header('x-service-api-key'),
        'x-service-auth-token': header('x-service-auth-token'),
      },
    });
    const set = new Promise<number>((resolve, reject) => {
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', reject);
    });
    // Sent whole, then a moment for the twin (idle until now) to take it up: the request is under way.
    await new Promise((resolve) => request.end(body, () => resolve(undefined)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(twin, 'SIGSTOP');
    const exit = exited(npm);
    npm.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(twin, 'SIGCONT');
    expect(await set).toBe(200);
    expect(await exit).toBe(0);
    expect(output()).toContain('Stopped.');
    expect(await stillRunning(below)).toEqual([]);
  } finally {
    for (const pid of below.filter(isRunning)) process.kill(pid, 'SIGCONT');
    for (const pid of below.filter(isRunning)) process.kill(pid, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
}, 90_000);
