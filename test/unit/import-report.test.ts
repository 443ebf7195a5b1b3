import { expect, test } from '@jest/globals';
import { joinReport, reportPartKey, writeReportPart } from '#shared/imports/report.js';
import { MemoryFiles } from '../support/import-fakes.js';

// An import's error report: each page's part, joined in line order into one file; a large
// report is written in parts of at least S3's smallest (5 MiB), never held whole.

const KEY = 'import-errors/org-1/imp-1-00.jsonl';

test('the parts are joined in the order of their first lines, whatever order they were listed in', async () => {
  const files = new MemoryFiles();
  await writeReportPart(files, KEY, 1001, [{ line: 1500, message: 'b' }]);
  await writeReportPart(files, KEY, 1, [
    { line: 2, message: 'a' },
    { line: 7, applied: true, notMapped: ['workflows'] },
  ]);
  await joinReport(files, KEY, [1001, 1]);
  expect(files.text(KEY)).toBe(
    '{"line":2,"message":"a"}\n{"line":7,"applied":true,"notMapped":["workflows"]}\n{"line":1500,"message":"b"}\n',
  );
  expect(files.files.has(reportPartKey(KEY, 1))).toBe(true);
});

test('a report over 5 MiB is written in parts, each but the last at least 5 MiB, and reads as the parts joined', async () => {
  const files = new MemoryFiles();
  const uploaded: number[] = [];
  const putPart = files.putPart.bind(files);
  files.putPart = async (key, uploadId, partNumber, body) => {
    uploaded.push(body.length);
    return putPart(key, uploadId, partNumber, body);
  };
  const message = 'x'.repeat(3 * 1024 * 1024);
  for (const first of [1, 1001, 2001]) await writeReportPart(files, KEY, first, [{ line: first, message }]);
  await joinReport(files, KEY, [1, 1001, 2001]);
  expect(uploaded).toHaveLength(2);
  expect(uploaded[0]).toBeGreaterThanOrEqual(5 * 1024 * 1024);
  const lines = files.text(KEY)?.trimEnd().split('\n') ?? [];
  expect(lines.map((line) => JSON.parse(line).line)).toEqual([1, 1001, 2001]);
  expect(files.puts).toBe(3);
});
