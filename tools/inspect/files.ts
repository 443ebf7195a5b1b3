import { paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { printable, table } from '../cli/output.js';

/**
 * The files bucket's objects (import uploads, rejected rows, exports), newest first: key, size
 * and when written. On AWS each is deleted 7 days after it was written; the twin keeps them until
 * its data directory is removed.
 */
export const inspectFiles = async (s3: S3Client, bucket: string, limit: number): Promise<string[]> => {
  const objects: { key: string; size: number; written: Date }[] = [];
  for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: bucket })) {
    for (const object of page.Contents ?? []) {
      objects.push({ key: object.Key ?? '', size: object.Size ?? 0, written: object.LastModified ?? new Date(0) });
    }
  }
  objects.sort((a, b) => b.written.getTime() - a.written.getTime());
  const shown = limit > 0 ? objects.slice(0, limit) : objects;
  if (objects.length === 0) return [printable(`Files (bucket ${bucket}): none`)];
  return [
    printable(
      `Files (bucket ${bucket}): ${objects.length}, newest first${shown.length < objects.length ? `, ${shown.length} shown` : ''}`,
    ),
    ...table([
      ['  key', 'bytes', 'written'],
      ...shown.map((o) => [printable(`  ${o.key}`), String(o.size), o.written.toISOString()]),
    ]).split('\n'),
  ];
};
