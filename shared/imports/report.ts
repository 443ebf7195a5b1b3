import type { FilePart, FileStore } from '#shared/files/store.js';

/*
 * The error report of an import (contract 15.1, errorReportUrl): every rejected line, and every
 * applied line that held what has no equivalent here, one JSON object per line. A page writes
 * its lines to a part file named by its first line (a page run again writes the same part
 * again); once the file is read, the parts are joined into the report in their order.
 */

/** A line of the report. */
export type ReportLine =
  | { line: number; message: string }
  | { line: number; applied: true; notMapped: readonly string[] };

/** S3's smallest part but the last (5 MiB). */
const PART_BYTES = 5 * 1024 * 1024;
const CONTENT_TYPE = 'application/x-ndjson';

export const reportPartKey = (reportKey: string, firstLine: number): string => `${reportKey}.part-${firstLine}`;

export const writeReportPart = (
  files: Pick<FileStore, 'put'>,
  reportKey: string,
  firstLine: number,
  lines: readonly ReportLine[],
): Promise<void> =>
  files.put(
    reportPartKey(reportKey, firstLine),
    Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join('')),
    CONTENT_TYPE,
  );

/** Joins the parts (by their first lines, in order) into the report: one write when small, else parts of 5 MiB. */
export const joinReport = async (
  files: Pick<FileStore, 'readAll' | 'put' | 'startParts' | 'putPart' | 'completeParts'>,
  reportKey: string,
  parts: readonly number[],
): Promise<void> => {
  let held: Buffer[] = [];
  let size = 0;
  let uploadId: string | undefined;
  const written: FilePart[] = [];
  const flush = async () => {
    uploadId ??= await files.startParts(reportKey, CONTENT_TYPE);
    written.push(await files.putPart(reportKey, uploadId, written.length + 1, Buffer.concat(held, size)));
    held = [];
    size = 0;
  };
  for (const firstLine of [...parts].sort((a, b) => a - b)) {
    const body = await files.readAll(reportPartKey(reportKey, firstLine));
    held.push(body);
    size += body.length;
    if (size >= PART_BYTES) await flush();
  }
  if (!uploadId) {
    await files.put(reportKey, Buffer.concat(held, size), CONTENT_TYPE);
    return;
  }
  if (size > 0) await flush();
  await files.completeParts(reportKey, uploadId, written);
};
