import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from '@jest/globals';
import { ImportFileError, MAX_LINE_BYTES, type ReadLine, readCsv, readJsonLines } from '#shared/imports/read.js';

// The streaming readers of import files: rows and rejected lines with their numbers, and the
// files that cannot be read on, whatever way their bytes arrive in chunks.

/** The bytes in chunks of `size`, as a stream delivers them (a line may span chunks). */
const stream = (bytes: Buffer, size = 7) =>
  Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
    })(),
  );

const all = async (lines: AsyncIterable<ReadLine>) => {
  const out: ReadLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

describe('JSON lines', () => {
  test('one object per line, CRLF or LF, blank lines skipped, a byte-order mark allowed', async () => {
    const text = '\uFEFF{"userId":"a"}\r\n\n{"userId":"b","config":{"email":"NONE"}}\n';
    expect(await all(readJsonLines(stream(Buffer.from(text))))).toEqual([
      { line: 1, value: { userId: 'a' } },
      { line: 3, value: { userId: 'b', config: { email: 'NONE' } } },
    ]);
  });

  test('a bad line is rejected with its number and reason; the others are read', async () => {
    const long = `{"userId":"${'x'.repeat(MAX_LINE_BYTES)}"}`;
    const bytes = Buffer.concat([
      Buffer.from('{"userId":"a"}\nnot json\n[1]\n'),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
      Buffer.from(`${long}\n{"userId":"z"}`),
    ]);
    expect(await all(readJsonLines(stream(bytes, 4096)))).toEqual([
      { line: 1, value: { userId: 'a' } },
      { line: 2, error: 'The line is not JSON' },
      { line: 3, error: 'The line is not a JSON object' },
      { line: 4, error: 'The line is not UTF-8 text' },
      { line: 5, error: `The line is longer than ${MAX_LINE_BYTES} bytes` },
      { line: 6, value: { userId: 'z' } },
    ]);
  });

  test('the same lines whatever the chunks: a CRLF, a character or a line split between two', async () => {
    const text = '{"userId":"é😀"}\r\n\n{"userId":"b"}\r\n{"userId":"c","config":{"email":"NONE"}}';
    const bytes = Buffer.from(text);
    const expected = [
      { line: 1, value: { userId: 'é😀' } },
      { line: 3, value: { userId: 'b' } },
      { line: 4, value: { userId: 'c', config: { email: 'NONE' } } },
    ];
    for (const size of [1, 2, 3, 5, 16, 17, bytes.length]) {
      expect(await all(readJsonLines(stream(bytes, size)))).toEqual(expected);
    }
  });

  test('gzip: read through; a file that is not gzip ends the reading', async () => {
    const zipped = gzipSync(Buffer.from('{"userId":"a"}\n{"userId":"b"}\n'));
    expect(await all(readJsonLines(stream(zipped), true))).toHaveLength(2);
    await expect(all(readJsonLines(stream(Buffer.from('{"userId":"a"}\n')), true))).rejects.toThrow(ImportFileError);
  });
});

describe('CSV', () => {
  test('a header among the known columns, a row per record, an empty cell absent, quotes as RFC 4180', async () => {
    const text = '\uFEFFuserId,documentId,email\r\nann,,NONE\r\n"b,ob",doc-1,"ALL"\r\n';
    expect(await all(readCsv(stream(Buffer.from(text))))).toEqual([
      { line: 2, value: { userId: 'ann', email: 'NONE' } },
      { line: 3, value: { userId: 'b,ob', documentId: 'doc-1', email: 'ALL' } },
    ]);
  });

  test('a row not UTF-8, or of another length, is rejected alone', async () => {
    const bytes = Buffer.concat([
      Buffer.from('userId,email\nann,NONE\n'),
      Buffer.from([0x62, 0xff, 0x2c, 0x41, 0x4c, 0x4c, 0x0a]),
      Buffer.from('cy,ALL,extra\ndee,MINE\n'),
    ]);
    expect(await all(readCsv(stream(bytes)))).toEqual([
      { line: 2, value: { userId: 'ann', email: 'NONE' } },
      { line: 3, error: 'The row is not UTF-8 text' },
      { line: 4, error: 'The row has 3 cells where the header names 2' },
      { line: 5, value: { userId: 'dee', email: 'MINE' } },
    ]);
  });

  test('a wrong header, or a quote that never closes, ends the reading with the reason', async () => {
    await expect(all(readCsv(stream(Buffer.from('user,phone\nann,1\n'))))).rejects.toThrow(
      /The CSV header must name columns among userId, documentId, category, inbox, email, slack/,
    );
    await expect(all(readCsv(stream(Buffer.from('userId,email\nann,"NONE\nbob,ALL\n'))))).rejects.toThrow(
      'A quoted CSV field never closes',
    );
  });

  test('gzip-compressed CSV is read through', async () => {
    const zipped = gzipSync(Buffer.from('userId,slack\nann,NONE\n'));
    expect(await all(readCsv(stream(zipped), true))).toEqual([{ line: 2, value: { userId: 'ann', slack: 'NONE' } }]);
  });
});
