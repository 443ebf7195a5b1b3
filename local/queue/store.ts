import { type FileHandle, mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { QueuedMessage } from './message.js';
import type { LogLine, QueueJournal } from './queue.js';

/**
 * The queues' messages on disk, so that a message the twin acknowledged survives a crash of
 * the process (SIGKILL, a crash) as it would survive in SQS.
 *
 * Design: an append-only journal of JSON lines. Every change of a message is one line; a
 * batch of lines is written and fsynced (group commit: changes that arrive during a write go
 * together into the next one), and SendMessage answers only once its line is on disk. At
 * start the journal is replayed, then compacted: rewritten as one snapshot line into a
 * temporary file, fsynced and renamed over the journal, so a crash mid-compaction leaves
 * either the old journal or the new one. It is compacted again when it grows long, and on close.
 *
 * Lines:
 *   {"version":1,"queues":{"<queue>":[message, ...]}}   a snapshot: every queue's messages
 *   {"queue":"<queue>","put":message}                   a message added or changed
 *   {"queue":"<queue>","delete":"<messageId>"}          a message deleted
 *
 * A last line cut short by a crash was never acknowledged: it is skipped.
 */

const COMPACT_AFTER_LINES = 2_000;

interface Snapshot {
  version: 1;
  queues: Record<string, QueuedMessage[]>;
}

type Line = Snapshot | { queue: string; put: QueuedMessage } | { queue: string; delete: string };

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The new name of a renamed or created file survives a power cut only once its directory is synced. */
const syncDirectory = async (path: string): Promise<void> => {
  let directory: FileHandle | undefined;
  try {
    directory = await open(path, 'r');
    await directory.sync();
  } catch {
    // Some platforms (Windows) cannot open a directory: the rename is then as durable as it gets.
  } finally {
    await directory?.close();
  }
};

export class QueueStore {
  /** What the file holds once every recorded line is written: queue name -> messages by id, in order. */
  private readonly state = new Map<string, Map<string, QueuedMessage>>();
  private pending: string[] = [];
  /** The write that will take the pending lines; undefined once it has taken them. */
  private next: Promise<void> | undefined;
  /** The last write (each runs after the one before). */
  private last: Promise<void> = Promise.resolve();
  private handle: FileHandle | undefined;
  private linesInFile = 0;

  private constructor(
    readonly file: string,
    private readonly log: LogLine,
  ) {}

  /** Reads the file (a journal, or the older single snapshot), compacts it, and opens it for appending. */
  static async open(file: string, log: LogLine = () => {}): Promise<QueueStore> {
    const store = new QueueStore(file, log);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const lines = text.split('\n');
    for (const [index, line] of lines.entries()) {
      if (!line.trim()) continue;
      try {
        store.apply(JSON.parse(line) as Line);
      } catch (error) {
        // Only the last line can be cut short by a crash; anything else is worth a word.
        if (index < lines.length - 1) log(`[sqs] ${file}: skipped line ${index + 1}: ${errorMessage(error)}`);
      }
    }
    await store.compact();
    return store;
  }

  /** The messages saved for `queue`, in order. */
  messages(queue: string): QueuedMessage[] {
    return [...(this.state.get(queue)?.values() ?? [])].map((m) => ({ ...m }));
  }

  /** The journal of one queue. */
  journal(queue: string): QueueJournal {
    return {
      put: (message) => this.record({ queue, put: message }),
      remove: (messageId) => this.record({ queue, delete: messageId }),
      flush: () => this.flush(),
    };
  }

  /** Resolves once every line recorded so far is on disk; rejects if writing it failed. */
  flush(): Promise<void> {
    return this.next ?? this.last;
  }

  /** Writes what is pending, compacts the file if it has grown, and closes it. */
  async close(): Promise<void> {
    await this.flush().catch(() => {});
    // The journal already holds everything: compacting here only saves the next start some work.
    this.last = this.last
      .catch(() => {})
      .then(() => (this.linesInFile > 1 ? this.compact() : undefined))
      .catch((error) => this.log(`[sqs] could not compact ${this.file}: ${errorMessage(error)}`));
    await this.last;
    await this.handle?.close();
    this.handle = undefined;
  }

  private queue(name: string): Map<string, QueuedMessage> {
    let messages = this.state.get(name);
    if (!messages) {
      messages = new Map();
      this.state.set(name, messages);
    }
    return messages;
  }

  private apply(line: Line): void {
    if ('version' in line) {
      this.state.clear();
      for (const [name, messages] of Object.entries(line.queues ?? {})) {
        if (!Array.isArray(messages)) continue;
        for (const message of messages) this.queue(name).set(message.messageId, message);
      }
    } else if ('put' in line) {
      this.queue(line.queue).set(line.put.messageId, line.put);
    } else if ('delete' in line) {
      this.queue(line.queue).delete(line.delete);
    }
  }

  private record(line: Line): void {
    this.apply(line);
    this.pending.push(`${JSON.stringify(line)}\n`);
    if (this.next) return;
    const write = this.last
      .catch(() => {})
      .then(() => {
        this.next = undefined;
        return this.write(this.pending.splice(0));
      });
    this.next = write;
    this.last = write;
    write.catch((error) => this.log(`[sqs] could not write ${this.file}: ${errorMessage(error)}`));
  }

  private async write(lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    if (!this.handle) throw new Error('the queue store is closed');
    await this.handle.write(lines.join(''));
    await this.handle.datasync();
    this.linesInFile += lines.length;
    if (this.linesInFile > COMPACT_AFTER_LINES) await this.compact();
  }

  /**
   * Replaces the file with one snapshot of the state. The state may already hold changes whose
   * lines are still pending; they are written after it and, replayed on it, change nothing.
   */
  private async compact(): Promise<void> {
    const snapshot: Snapshot = {
      version: 1,
      queues: Object.fromEntries([...this.state].map(([name, messages]) => [name, [...messages.values()]])),
    };
    const temporary = `${this.file}.${process.pid}.tmp`;
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.write(`${JSON.stringify(snapshot)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, this.file);
    await syncDirectory(dirname(this.file));
    await this.handle?.close();
    this.handle = await open(this.file, 'a');
    this.linesInFile = 1;
  }
}
