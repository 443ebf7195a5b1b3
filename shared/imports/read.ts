import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CsvError, parse } from 'csv-parse';

/**
 * The streaming readers of an import file (contract 15.1): the file's bytes in, one parsed line
 * at a time out, so that memory stays flat whatever the file's size and no line is ever held
 * whole when it is over the limit. A line that cannot be a row (not UTF-8, not JSON, over 1 MiB,
 * a NUL byte) is a rejected line with its number and reason; what makes the rest of the file
 * unreadable (a gzip that is not gzip, a CSV quote that never closes, a header naming unknown
 * columns) ends the reading with an ImportFileError.
 */

export const IMPORT_FORMATS = ['jsonl', 'csv', 'knock', 'novu'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The longest line a file may hold. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** The CSV columns an import reads (an export writes them in this order). */
export const CSV_IMPORT_COLUMNS = ['userId', 'documentId', 'category', 'inbox', 'email', 'slack'] as const;

/** One line of the file: its value, or why it is not one. Lines are numbered from 1 (a CSV's header is line 1). */
export type ReadLine = { line: number; value: Record<string, unknown> } | { line: number; error: string };

/** The file cannot be read on (the import fails with this reason and the counts so far). */
export class ImportFileError extends Error {
  override readonly name = 'ImportFileError';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes of the file, through gunzip when it is compressed; a gzip that is not one ends the reading. */
const bytesOf = async function* (source: Readable, gzip: boolean): AsyncGenerator<Buffer> {
  if (!gzip) {
    for await (const chunk of source) yield chunk as Buffer;
    return;
  }
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('Z_')) throw new ImportFileError('The file is not gzip-compressed data, or it is cut short');
    throw error;
  }
};

/** A line of the file as bytes (without its LF or CRLF); none when it is over MAX_LINE_BYTES. */
interface LineBytes {
  line: number;
  bytes?: Buffer;
}

/**
 * The file's lines as byte buffers (LF or CRLF), numbered, a chunk's worth at a time; a line over
 * MAX_LINE_BYTES is reported as too long and skipped to its end without being kept. A line within
 * one chunk is a view of it (no copy); only a line across chunks is joined.
 */
const linesOf = async function* (bytes: AsyncIterable<Buffer>): AsyncGenerator<LineBytes[]> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let line = 0;
  const end = (ended: LineBytes[], last: Buffer) => {
    line += 1;
    if (tooLong) ended.push({ line });
    else {
      let text = parts.length === 0 ? last : Buffer.concat([...parts, last], size);
      if (text.at(-1) === 0x0d) text = text.subarray(0, -1);
      ended.push({ line, bytes: text });
    }
    parts = [];
    size = 0;
    tooLong = false;
  };
  for await (const chunk of bytes) {
    const ended: LineBytes[] = [];
    let start = 0;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, start)) {
      size += at - start;
      if (size > MAX_LINE_BYTES) tooLong = true;
      end(ended, chunk.subarray(start, at));
      start = at + 1;
    }
    const rest = chunk.length - start;
    if (rest > 0) {
      size += rest;
      if (size > MAX_LINE_BYTES) {
        tooLong = true;
        parts = [];
      } else if (!tooLong) parts.push(chunk.subarray(start));
    }
    if (ended.length > 0) yield ended;
  }
  if (size > 0 || tooLong) {
    const ended: LineBytes[] = [];
    end(ended, Buffer.alloc(0));
    yield ended;
  }
};

/** Reads a JSON-lines file (jsonl, knock, novu): one object per line; blank lines are skipped. */
export const readJsonLines = async function* (source: Readable, gzip = false): AsyncGenerator<ReadLine> {
  for await (const ended of linesOf(bytesOf(source, gzip))) {
    for (const read of jsonLines(ended)) yield read;
  }
};

/** A chunk's lines of a JSON-lines file, parsed. */
const jsonLines = function* (ended: readonly LineBytes[]): Generator<ReadLine> {
  for (const { line, bytes } of ended) {
    if (!bytes) {
      yield { line, error: `The line is longer than ${MAX_LINE_BYTES} bytes` };
      continue;
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      yield { line, error: 'The line is not UTF-8 text' };
      continue;
    }
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') continue;
    if (text.includes('\u0000')) {
      yield { line, error: 'The line holds a NUL byte: not text' };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      yield { line, error: 'The line is not JSON' };
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      yield { line, error: 'The line is not a JSON object' };
      continue;
    }
    yield { line, value: value as Record<string, unknown> };
  }
};

/**
 * Reads a CSV file (RFC 4180, UTF-8, a byte-order mark allowed): a header naming columns among
 * CSV_IMPORT_COLUMNS (userId required), then one row per record; an empty cell is absent. Bytes
 * that are not UTF-8 reject their row; a quote that never closes, or a record over the line
 * limit, ends the reading; a row with another number of cells than the header is rejected.
 */
export const readCsv = async function* (source: Readable, gzip = false): AsyncGenerator<ReadLine> {
  const parser = parse({
    bom: true,
    // A row with another number of cells is rejected alone (below), not the file.
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_LINE_BYTES,
    info: true,
  });
  const feed = (async () => {
    try {
      for await (const chunk of bytesOf(source, gzip)) {
        if (!parser.write(chunk)) await new Promise((resolve) => parser.once('drain', resolve));
      }
      parser.end();
    } catch (error) {
      parser.destroy(error as Error);
    }
  })();
  let columns: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const line = info.lines;
      if (!columns) {
        columns = record.map((name) => name.trim());
        const unknown = columns.filter((name) => !(CSV_IMPORT_COLUMNS as readonly string[]).includes(name));
        if (unknown.length > 0 || !columns.includes('userId') || new Set(columns).size !== columns.length) {
          throw new ImportFileError(
            `The CSV header must name columns among ${CSV_IMPORT_COLUMNS.join(', ')}, userId included, each once` +
              (unknown.length > 0 ? `; it names ${unknown.map((name) => JSON.stringify(name)).join(', ')}` : ''),
          );
        }
        continue;
      }
      if (record.length !== columns.length) {
        yield { line, error: `The row has ${record.length} cells where the header names ${columns.length}` };
        continue;
      }
      if (record.some((cell) => cell.includes('\uFFFD'))) {
        yield { line, error: 'The row is not UTF-8 text' };
        continue;
      }
      if (record.some((cell) => cell.includes('\u0000'))) {
        yield { line, error: 'The row holds a NUL byte: not text' };
        continue;
      }
      const value: Record<string, unknown> = {};
      columns.forEach((name, index) => {
        const cell = record[index];
        if (cell !== undefined && cell !== '') value[name] = cell;
      });
      yield { line, value };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      const reasons: Record<string, string> = {
        CSV_QUOTE_NOT_CLOSED: 'A quoted CSV field never closes',
        CSV_MAX_RECORD_SIZE: `A CSV row is longer than ${MAX_LINE_BYTES} bytes (line ${error.lines})`,
      };
      throw new ImportFileError(reasons[error.code] ?? `The file is not CSV: ${error.message}`);
    }
    throw error;
  } finally {
    await feed;
  }
};
