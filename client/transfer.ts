import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TransportError } from './index.js';
import { backoffDelay, type RetrySettings, sleep } from './retry.js';

/**
 * Moving a job's file to or from its presigned URL (contract 15.3), in Node: the file streams
 * between the disk and the network, so memory holds a few chunks whatever its size. The URL
 * is a credential for its hour, so no message here names it.
 */

/** The file storage refused the transfer (an expired URL, a file over 5 GB, a signature that does not match). */
export class FileTransferError extends Error {
  override readonly name = 'FileTransferError';

  constructor(
    readonly direction: 'upload' | 'download',
    readonly httpStatus: number,
    /** The storage's error code (S3's `<Code>`: AccessDenied, EntityTooLarge, ...), when it said one. */
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }

  /** A 5xx may pass on a second try; anything else would be refused the same way. */
  get retryable(): boolean {
    return this.httpStatus >= 500;
  }
}

/** What importFile uploads: a path, the bytes, or a stream (with its size, or spooled to a temporary file to learn it). */
export type ImportSource = string | Uint8Array | Readable | { stream: Readable; size: number };

/** A source ready to send: its size, a body for each attempt, and whether a second attempt can send it again. */
export interface Upload {
  size: number;
  body: () => RequestInit['body'];
  repeatable: boolean;
  /** Removes what preparing it wrote (a spooled stream's temporary file). */
  dispose: () => Promise<void>;
}

const fileBody = (path: string): RequestInit['body'] =>
  Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;

/**
 * Makes a source ready to upload. S3 refuses a presigned PUT without a Content-Length, so a
 * stream of unknown size is first written to a temporary file (streamed, removed by `dispose`).
 */
export const prepareUpload = async (source: ImportSource): Promise<Upload> => {
  const nothing = async () => {};
  if (typeof source === 'string') {
    const file = await stat(source);
    if (!file.isFile()) throw new Error(`${source} is not a file`);
    const { size } = file;
    return { size, body: () => fileBody(source), repeatable: true, dispose: nothing };
  }
  if (source instanceof Uint8Array) {
    return { size: source.byteLength, body: () => source, repeatable: true, dispose: nothing };
  }
  if (source instanceof Readable) {
    const folder = await mkdtemp(join(tmpdir(), 'notification-preferences-import-'));
    const dispose = () => rm(folder, { recursive: true, force: true });
    try {
      const path = join(folder, 'upload');
      await pipeline(source, createWriteStream(path));
      const { size } = await stat(path);
      return { size, body: () => fileBody(path), repeatable: true, dispose };
    } catch (error) {
      await dispose();
      throw error;
    }
  }
  const { stream, size } = source;
  return {
    size,
    body: () => Readable.toWeb(stream) as ReadableStream<Uint8Array>,
    repeatable: false,
    dispose: nothing,
  };
};

/** S3's error body is XML; its `<Code>` and `<Message>` say why. */
const refusal = async (direction: 'upload' | 'download', response: Response): Promise<FileTransferError> => {
  const text = await response.text().catch(() => '');
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
  const reason = /<Message>([^<]{1,300})<\/Message>/.exec(text)?.[1];
  const what = direction === 'upload' ? 'The upload of the file' : 'The download of the file';
  const said = [code, reason].filter(Boolean).join(': ');
  return new FileTransferError(
    direction,
    response.status,
    code,
    `${what} was refused with HTTP ${response.status}${said ? ` (${said})` : ''}`,
  );
};

const networkError = (direction: 'upload' | 'download', error: unknown): TransportError => {
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  const reason = error instanceof Error ? error.message : String(error);
  return new TransportError('network', `The ${direction} of the file failed: ${reason}${cause}`, undefined, {
    cause: error,
  });
};

/** Tries `once` up to `retry.attempts` times while it fails with what may pass (no answer, a 5xx). */
const withRetries = async <T>(
  once: () => Promise<T>,
  retry: RetrySettings,
  repeatable: boolean,
  signal: AbortSignal | undefined,
): Promise<T> => {
  for (let attempts = 1; ; attempts++) {
    try {
      return await once();
    } catch (error) {
      const passing =
        (error instanceof FileTransferError && error.retryable) ||
        (error instanceof TransportError && error.kind === 'network');
      if (!repeatable || !passing || attempts >= retry.attempts || signal?.aborted) throw error;
      await sleep(backoffDelay(attempts, retry), signal).catch(() => {
        throw error;
      });
    }
  }
};

export interface TransferOptions {
  fetch: typeof fetch;
  retry: RetrySettings;
  signal?: AbortSignal | undefined;
}

/**
 * Streams the file at `url` to `path`: into a temporary file beside it, renamed to `path` once
 * whole, so that `path` never holds part of a file.
 */
export const downloadFile = (url: string, path: string, { fetch, retry, signal }: TransferOptions): Promise<void> =>
  withRetries(
    async () => {
      const partial = join(dirname(path), `.${basename(path)}.${randomUUID()}.partial`);
      try {
        let response: Response;
        try {
          response = await fetch(url, signal ? { signal } : {});
        } catch (error) {
          throw networkError('download', error);
        }
        if (!response.ok || !response.body) throw await refusal('download', response);
        try {
          await pipeline(
            Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>),
            createWriteStream(partial),
            signal ? { signal } : {},
          );
        } catch (error) {
          throw networkError('download', error);
        }
        await rename(partial, path);
      } finally {
        await rm(partial, { force: true });
      }
    },
    retry,
    true,
    signal,
  );

/** PUTs the prepared source to `url` with its Content-Length, as a presigned S3 PUT requires. */
export const uploadFile = (url: string, upload: Upload, { fetch, retry, signal }: TransferOptions): Promise<void> =>
  withRetries(
    async () => {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'PUT',
          headers: { 'content-length': String(upload.size) },
          body: upload.body(),
          // A stream body goes out as it is read (Node's fetch requires saying so).
          duplex: 'half',
          ...(signal ? { signal } : {}),
        } as RequestInit);
      } catch (error) {
        throw networkError('upload', error);
      }
      if (!response.ok) throw await refusal('upload', response);
      await response.body?.cancel();
    },
    retry,
    upload.repeatable,
    signal,
  );
