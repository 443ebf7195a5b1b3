import { type FileHandle, open, rename } from 'node:fs/promises';

/**
 * The events the EventBridge twin accepted, one JSON line each (the data directory's
 * events.jsonl). Bounded: once the next write would take the file past `maxBytes`, it is renamed
 * to events.1.jsonl (replacing the one before) and a new file begins, so the two hold at most
 * about twice the limit. A write is never split across the two. Each write is on disk (datasync)
 * before it resolves: an event the twin acknowledged survives a crash.
 */
export const DEFAULT_EVENTS_MAX_BYTES = 10 * 1024 * 1024;

/** `events.jsonl` -> `events.1.jsonl`. */
export const rotatedPath = (file: string): string => file.replace(/(\.jsonl)?$/, '.1$1');

export class EventsFile {
  private handle: FileHandle | undefined;
  private size = 0;
  /** Writes one at a time, in the order asked for. */
  private last: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string,
    readonly maxBytes: number,
  ) {}

  static async open(file: string, maxBytes = DEFAULT_EVENTS_MAX_BYTES): Promise<EventsFile> {
    const events = new EventsFile(file, maxBytes);
    await events.reopen();
    return events;
  }

  /** Appends the lines (each ending in a newline); resolves once they are on disk. */
  append(lines: string[]): Promise<void> {
    const text = lines.join('');
    const write = this.last.catch(() => {}).then(() => this.write(text));
    this.last = write;
    return write;
  }

  async close(): Promise<void> {
    await this.last.catch(() => {});
    await this.handle?.close();
    this.handle = undefined;
  }

  private async write(text: string): Promise<void> {
    if (!this.handle) throw new Error('the events file is closed');
    const bytes = Buffer.byteLength(text);
    if (this.size > 0 && this.size + bytes > this.maxBytes) {
      await this.handle.close();
      this.handle = undefined;
      try {
        await rename(this.file, rotatedPath(this.file));
      } finally {
        await this.reopen();
      }
    }
    if (!this.handle) throw new Error('the events file is closed');
    await this.handle.write(text);
    await this.handle.datasync();
    this.size += bytes;
  }

  private async reopen(): Promise<void> {
    this.handle = await open(this.file, 'a+', 0o600);
    this.size = (await this.handle.stat()).size;
    // A line cut short by a crash was never acknowledged: the next one starts on a line of its own.
    if (this.size > 0) {
      const last = Buffer.alloc(1);
      await this.handle.read(last, 0, 1, this.size - 1);
      if (last[0] !== 0x0a) {
        await this.handle.write('\n');
        this.size += 1;
      }
    }
  }
}
