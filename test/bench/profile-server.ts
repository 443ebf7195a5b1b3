import { fork } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Ready, ServerMessage } from './servers/protocol.js';

/**
 * Profiles one of the throughput servers under load, for finding what a missed throughput goal
 * costs: `tsx test/bench/profile-server.ts [service|baseline] [set|get] [seconds] [connections]`.
 * The server runs with --cpu-prof; the profile (open it in Chrome DevTools) is kept in
 * test/bench/results/profiles/, and the CPU time per request of each package during the load
 * (start-up excluded) is printed.
 */
const [which = 'service', operation = 'set', seconds = '6', connections = '8'] = process.argv.slice(2);
const dir = fileURLToPath(new URL(`./results/profiles/${which}-${operation}`, import.meta.url));
await rm(dir, { recursive: true, force: true });

const child = fork(fileURLToPath(new URL(`./servers/${which}-server.ts`, import.meta.url)), [], {
  execArgv: [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${dir}`],
});
const ready = await new Promise<Ready>((resolve) =>
  child.on('message', (m: ServerMessage) => m.type === 'ready' && resolve(m)),
);
const data =
  operation === 'set'
    ? { organizationId: 'bench-org', userIds: ['user-1'], documentIds: ['doc-1'], config: { email: 'MINE' } }
    : { organizationId: 'bench-org', userId: 'user-1', documentIds: ['doc-1'] };
const result = await autocannon({
  url: `${ready.baseUrl}/v2/notifications/config/${operation}`,
  method: 'POST',
  headers: { 'content-type': 'application/json', ...ready.headers },
  body: JSON.stringify({ data }),
  connections: Number(connections),
  duration: Number(seconds),
});
const requests = result['2xx'];
console.log(
  `${which} ${operation}: ${(requests / result.duration).toFixed(1)} req/s, ${result.errors + result.non2xx} errors`,
);
await new Promise((resolve) => {
  child.once('exit', resolve);
  child.send({ type: 'stop' });
});

interface Profile {
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
  endTime: number;
}
const file = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${dir}`);
const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const groupOf = ({ callFrame: { url, functionName } }: Profile['nodes'][number]) => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('file://')) return url.replace(/^file:\/\/.*?\/(shared|functions|infra|test)\//, '$1/');
  return url || functionName;
};
// Only the samples of the load (the last `seconds`), so that start-up does not count.
const cutoff = profile.endTime - Number(seconds) * 1e6;
let time = profile.endTime - profile.timeDeltas.reduce((a, b) => a + b, 0);
const self = new Map<string, number>();
profile.samples.forEach((id, i) => {
  time += profile.timeDeltas[i] ?? 0;
  if (time < cutoff) return;
  const group = groupOf(byId.get(id) as Profile['nodes'][number]);
  self.set(group, (self.get(group) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
console.log(`CPU per request by package or file (self time), profile in ${dir}:`);
for (const [group, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`${(us / requests).toFixed(1).padStart(8)} us  ${group}`);
}
