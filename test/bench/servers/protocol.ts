/** Messages between the throughput bench and its server processes (child_process IPC). */
export interface Ready {
  type: 'ready';
  baseUrl: string;
  headers: Record<string, string>;
}

export interface Memory {
  type: 'memory';
  /** Peak resident set size of the server process so far (bytes). */
  maxRss: number;
  rss: number;
}

export interface Cpu {
  type: 'cpu';
  /** process.cpuUsage() of the server so far, user + system (microseconds). */
  micros: number;
}

export type ServerMessage = Ready | Memory | Cpu;
export type BenchMessage = { type: 'memory' } | { type: 'cpu' } | { type: 'stop' };

/** Answers the bench's requests; every server process calls it once it is listening. */
export const serve = (ready: Omit<Ready, 'type'>, close: () => Promise<void>): void => {
  process.on('message', async (message: BenchMessage) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: user + system } satisfies Cpu);
    } else if (message.type === 'memory') {
      const reply: Memory = {
        type: 'memory',
        maxRss: process.resourceUsage().maxRSS * 1024,
        rss: process.memoryUsage.rss(),
      };
      process.send?.(reply);
    } else if (message.type === 'stop') {
      await close().catch(() => {});
      process.exit(0);
    }
  });
  process.send?.({ type: 'ready', ...ready } satisfies Ready);
};
