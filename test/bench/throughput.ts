import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import { DEFAULT_CREDENTIAL_CACHE_SECONDS, DEFAULT_POLICY_CACHE_SECONDS } from '#shared/platform/environment.js';
import { ORG, users } from './ids.js';
import { progress } from './progress.js';
import { goal, type Section, section } from './report.js';
import type { BenchMessage, Cpu, Memory, Ready, ServerMessage } from './servers/protocol.js';
import { fmtBytes, fmtMs, fmtNum, fmtRatio, median, ratio } from './stats.js';

interface Server {
  name: 'baseline' | 'service';
  child: ChildProcess;
  ready: Ready;
}

const SERVERS = {
  baseline: fileURLToPath(new URL('./servers/baseline-server.ts', import.meta.url)),
  service: fileURLToPath(new URL('./servers/service-server.ts', import.meta.url)),
} as const;

const START_TIMEOUT_MS = 60_000;

/** Starts a server in its own Node process (same loader flags as this one) and waits until it listens. */
const startServer = (name: Server['name']): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = fork(SERVERS[name], [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${name} server did not start in ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`${name} server exited (${code}) before it was ready`)));
    child.once('message', (message: ServerMessage) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ name, child, ready: message });
    });
  });

const ask = <T extends ServerMessage>(server: Server, message: BenchMessage, type: T['type']): Promise<T> =>
  new Promise((resolve) => {
    const listener = (reply: ServerMessage) => {
      if (reply.type !== type) return;
      server.child.off('message', listener);
      resolve(reply as T);
    };
    server.child.on('message', listener);
    server.child.send(message);
  });

const stopServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 5_000);
    server.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    server.child.send({ type: 'stop' } satisfies BenchMessage);
  });

/** A dispatcher's request: who of these users receives an activity on one document. */
const READERS = users(100, 'reader');
const RESOLVE_DOCUMENT = 'doc-resolve';

const OPERATIONS = {
  set: {
    path: '/v2/notifications/config/set',
    data: {
      organizationId: 'bench-org',
      userIds: ['user-1'],
      documentIds: ['doc-1'],
      config: { email: 'MINE', slack: 'NONE' },
    },
  },
  get: {
    path: '/v2/notifications/config/get',
    data: { organizationId: 'bench-org', userId: 'user-1', documentIds: ['doc-1'] },
  },
  resolve: {
    path: '/v2/notifications/config/resolve',
    data: {
      organizationId: ORG,
      documentId: RESOLVE_DOCUMENT,
      userIds: READERS,
      activity: { involvedUserIds: READERS.slice(0, 5) },
    },
  },
} as const;

/** The stored layers resolve reads: every reader has a document entry, half an organization entry. */
const seedReaders = async (server: Server): Promise<void> => {
  const requests = [
    { userIds: READERS, documentIds: [RESOLVE_DOCUMENT], config: { email: 'ALL', slack: 'MINE' } },
    { userIds: READERS.slice(0, READERS.length / 2), config: { inbox: 'NONE' } },
  ];
  for (const data of requests) {
    const response = await fetch(`${server.ready.baseUrl}${OPERATIONS.set.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.ready.headers },
      body: JSON.stringify({ data: { organizationId: ORG, ...data } }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`seeding ${server.name}: HTTP ${response.status}`);
  }
};

type Operation = keyof typeof OPERATIONS;
const OPERATION_ORDER: Operation[] = ['set', 'get', 'resolve'];

/** One autocannon run, with the server's CPU time per successful request over it. */
const load = async (
  server: Server,
  operation: Operation,
  connections: number,
  seconds: number,
): Promise<Result & { cpuPerRequest: number }> => {
  const before = await ask<Cpu>(server, { type: 'cpu' }, 'cpu');
  const result = await run(server, operation, connections, seconds);
  const after = await ask<Cpu>(server, { type: 'cpu' }, 'cpu');
  return Object.assign(result, { cpuPerRequest: (after.micros - before.micros) / Math.max(1, result['2xx']) });
};

const run = (server: Server, operation: Operation, connections: number, seconds: number): Promise<Result> =>
  autocannon({
    url: `${server.ready.baseUrl}${OPERATIONS[operation].path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.ready.headers },
    body: JSON.stringify({ data: OPERATIONS[operation].data }),
    connections,
    pipelining: 1,
    duration: seconds,
    // autocannon ends a run at a sample, one a second by default: a run shorter than a second
    // samples as often as it lasts, or it would last a second.
    sampleInt: Math.min(1000, seconds * 1000),
    timeout: 10,
  });

interface Measurement {
  operation: Operation;
  connections: number;
  server: Server['name'];
  /** Median over the rounds. */
  rps: number;
  rpsRuns: number[];
  /** Server CPU time (user + system) per successful request, microseconds, median over the rounds. */
  cpuPerRequest: number;
  p50: number;
  p99: number;
  errors: number;
  total: number;
}

export interface ThroughputOptions {
  connections: number[];
  /** Length of one measured run; each server gets `rounds` of them, alternating, per case. */
  seconds: number;
  rounds: number;
  warmupSeconds: number;
}

/**
 * Section 4: requests per second over HTTP (127.0.0.1 only), the service against a baseline
 * server with the same embedded DynamoDB and the same storage calls. Each server runs in its
 * own process; they take turns (never loaded at the same time), and the order alternates.
 */
export const throughputBench = async (options: ThroughputOptions): Promise<Section[]> => {
  const { connections, seconds, rounds, warmupSeconds } = options;
  // Started together: each waits mostly for its own DynamoDB Local; nothing is measured yet.
  const servers = await Promise.all([startServer('baseline'), startServer('service')]);
  const results: Measurement[] = [];
  try {
    // Together too: nothing is measured yet.
    await Promise.all(servers.map(seedReaders));
    let at = '';
    const shown = progress('throughput', () => at);
    for (const operation of OPERATION_ORDER) {
      for (const c of connections) {
        at = `${operation} at ${c} connection(s)`;
        if (warmupSeconds > 0) for (const server of servers) await load(server, operation, c, warmupSeconds);
        // Short runs taking turns, the median kept: a burst of load from elsewhere on the
        // machine then spoils one run of one server, not the comparison.
        const runs = new Map<Server['name'], (Result & { cpuPerRequest: number })[]>(servers.map((s) => [s.name, []]));
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 === 0 ? servers : [...servers].reverse();
          for (const server of order) runs.get(server.name)?.push(await load(server, operation, c, seconds));
        }
        for (const [name, list] of runs) {
          results.push({
            operation,
            connections: c,
            server: name,
            rps: median(list.map((r) => r['2xx'] / r.duration)),
            rpsRuns: list.map((r) => r['2xx'] / r.duration),
            cpuPerRequest: median(list.map((r) => r.cpuPerRequest)),
            p50: median(list.map((r) => r.latency.p50)),
            p99: median(list.map((r) => r.latency.p99)),
            errors: list.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0),
            total: list.reduce((n, r) => n + r.requests.total, 0),
          });
        }
      }
    }
    shown.stop();
    const memory = Object.fromEntries(
      await Promise.all(
        servers.map(async (s) => [s.name, await ask<Memory>(s, { type: 'memory' }, 'memory')] as const),
      ),
    ) as Record<Server['name'], Memory>;
    return [report(results, memory, options)];
  } finally {
    await Promise.all(servers.map(stopServer));
  }
};

const report = (
  results: Measurement[],
  memory: Record<Server['name'], Memory>,
  options: ThroughputOptions,
): Section => {
  const s = section('throughput', '4. Throughput over HTTP');
  const find = (operation: Operation, c: number, server: Server['name']) =>
    results.find((r) => r.operation === operation && r.connections === c && r.server === server) as Measurement;
  const rows: (string | number)[][] = [];
  for (const operation of OPERATION_ORDER) {
    for (const c of options.connections) {
      const base = find(operation, c, 'baseline');
      const svc = find(operation, c, 'service');
      // Paired: each round's two runs are adjacent in time, so their ratio cancels slow drifts
      // in the machine's load that a ratio of the two medians would not.
      const r = median(svc.rpsRuns.map((rps, round) => ratio(rps, base.rpsRuns[round] ?? Number.NaN)));
      rows.push([
        operation,
        c,
        fmtNum(svc.rps, 1),
        fmtNum(base.rps, 1),
        fmtRatio(r),
        `${fmtNum(svc.cpuPerRequest)} us`,
        `${fmtNum(base.cpuPerRequest)} us`,
        fmtRatio(ratio(base.cpuPerRequest, svc.cpuPerRequest)),
        fmtMs(svc.p50),
        fmtMs(svc.p99),
        fmtMs(base.p99),
        fmtNum(svc.errors),
        fmtNum(base.errors),
      ]);
      s.goals.push(
        goal(`${operation} at ${c} connection(s): requests/s vs baseline`, fmtRatio(r), '>= 0.8x', r >= 0.8),
      );
    }
  }
  const errors = results.filter((r) => r.server === 'service').reduce((n, r) => n + r.errors, 0);
  s.goals.push(goal('service errors (non-2xx, socket errors, timeouts)', fmtNum(errors), '0', errors === 0));
  s.tables.push({
    title: `autocannon: per case ${options.rounds} rounds of ${options.seconds} s per server, taking turns, ${options.warmupSeconds > 0 ? `after ${options.warmupSeconds} s warm-up` : 'without warm-up'}; req/s, CPU and latency are medians over the rounds, the ratio is the median of the rounds' paired ratios; set and get: 1 user x 1 document per request; resolve: ${READERS.length} users of one document (2 batched reads)`,
    columns: [
      'op',
      'connections',
      'service req/s',
      'baseline req/s',
      'ratio',
      'service CPU/req',
      'baseline CPU/req',
      'CPU ratio',
      'service p50',
      'service p99',
      'baseline p99',
      'service errors',
      'baseline errors',
    ],
    rows,
  });
  s.tables.push({
    title: 'Server processes (their stores run apart, as `npm start` runs them): memory over the whole section',
    columns: ['server', 'peak RSS', 'RSS at end'],
    rows: (['service', 'baseline'] as const).map((name) => [
      name,
      fmtBytes(memory[name].maxRss),
      fmtBytes(memory[name].rss),
    ]),
  });
  s.notes.push(
    'CPU/req is the server process\'s CPU time (user + system) per successful request, the store excluded when local/dynamo.ts runs it in a process of its own (DynamoDB Local); "CPU ratio" is baseline/service, what the requests/s ratio tends to when both are CPU-bound. It is much less sensitive than requests/s to other work on a shared machine, which shows up as a spread between runs and cases.',
    'Each server has its own store, started as `npm start` starts it (local/dynamo.ts), and makes the same storage calls; the ratio measures what the middleware, validation and API Gateway twin add on top of the same storage work. At 1 connection requests/s is 1/latency, so that ratio is the latency ratio too.',
    `The credential and policy caches are at the deployed defaults (${DEFAULT_CREDENTIAL_CACHE_SECONDS} s and ${DEFAULT_POLICY_CACHE_SECONDS} s; \`npm start\` itself reads the policy on every request unless POLICY_CACHE_SECONDS is set): after the first request no credential is read, and the organization's policy once per ${DEFAULT_POLICY_CACHE_SECONDS} s. The baseline does no authentication at all.`,
  );
  s.data = { results, memory, options };
  return s;
};
