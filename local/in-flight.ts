/**
 * The requests the twin's API is answering, so that its background work can wait for them. On AWS
 * the change publisher has compute and a table of its own; in the twin it shares DynamoDB Local's
 * one SQLite thread with the requests, and a large config/set with the publisher's writes beside
 * it can run out of its deadline (docs/design.md has the figures). The stream twin waits for a
 * quiet moment, but never longer than its bound, so that events and history are late by a few
 * seconds at most under steady traffic.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Counts `work` as in flight until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.count += 1;
    return work.finally(() => {
      this.count -= 1;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    });
  }

  get size(): number {
    return this.count;
  }

  /** Resolves once no request is in flight, or after `maxWaitMs`, whichever comes first. */
  async quiet(maxWaitMs: number): Promise<void> {
    if (this.count === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((wake) => wake !== done);
        resolve();
      }, maxWaitMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }
}
