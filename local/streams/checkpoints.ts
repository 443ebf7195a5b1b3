import { open, readFile, rename } from 'node:fs/promises';

/**
 * Where each shard of each stream was read up to: the last sequence number handed to the
 * function with success, per stream ARN and shard id. Kept in a file of the data directory
 * (streams.json) so that a restart resumes after it, neither losing nor repeating records:
 * written to a temporary file, flushed to disk, then renamed over the old one, so a crash
 * leaves either the old or the new content.
 */
export type Checkpoints = Record<string, Record<string, string>>;

export interface CheckpointStore {
  get(streamArn: string, shardId: string): string | undefined;
  set(streamArn: string, shardId: string, sequenceNumber: string): Promise<void>;
}

export class MemoryCheckpoints implements CheckpointStore {
  protected readonly data: Checkpoints;
  constructor(initial: Checkpoints = {}) {
    this.data = initial;
  }
  get(streamArn: string, shardId: string): string | undefined {
    return this.data[streamArn]?.[shardId];
  }
  async set(streamArn: string, shardId: string, sequenceNumber: string): Promise<void> {
    this.data[streamArn] ??= {};
    (this.data[streamArn] as Record<string, string>)[shardId] = sequenceNumber;
  }
}

export class FileCheckpoints extends MemoryCheckpoints {
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string,
    initial: Checkpoints,
  ) {
    super(initial);
  }

  static async open(file: string): Promise<FileCheckpoints> {
    try {
      return new FileCheckpoints(file, JSON.parse(await readFile(file, 'utf8')) as Checkpoints);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new FileCheckpoints(file, {});
      throw error;
    }
  }

  override async set(streamArn: string, shardId: string, sequenceNumber: string): Promise<void> {
    await super.set(streamArn, shardId, sequenceNumber);
    const content = `${JSON.stringify(this.data, null, 2)}\n`;
    // One write at a time, each of the content as it was when it was asked for.
    this.writing = this.writing.then(() => this.write(content));
    await this.writing;
  }

  private async write(content: string): Promise<void> {
    const temporary = `${this.file}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
  }
}
