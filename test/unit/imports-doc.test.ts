import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { mapKnockLine, mapNovuLine } from '#shared/imports/formats.js';
import { type ReadLine, readCsv, readJsonLines } from '#shared/imports/read.js';

// docs/imports.md shows each format with an example: the knock and novu lines map to exactly the
// rows and unmapped paths the block after each one shows, and the jsonl and csv examples read as
// the rows they say, so that the document and the code cannot drift apart.
const DOC = readFileSync(join(REPO_ROOT, 'docs/imports.md'), 'utf8');

interface Fence {
  info: string;
  body: string;
}

const fences: Fence[] = [...DOC.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({
  info: (match[1] ?? '').trim(),
  body: match[2] ?? '',
}));

const read = async (lines: AsyncGenerator<ReadLine>): Promise<ReadLine[]> => {
  const all: ReadLine[] = [];
  for await (const line of lines) all.push(line);
  return all;
};

const MAPPERS = { knock: mapKnockLine, novu: mapNovuLine };

describe('docs/imports.md', () => {
  const examples = fences.flatMap((fence, index) => {
    const format = /^json (knock|novu)$/.exec(fence.info)?.[1] as keyof typeof MAPPERS | undefined;
    return format ? [[format, fence, fences[index + 1]] as const] : [];
  });

  test('has one example of each product format, each followed by its rows', () => {
    expect(examples.map(([format]) => format)).toEqual(['knock', 'novu']);
    for (const [, , rows] of examples) expect(rows?.info).toBe('json rows');
  });

  test.each(examples)('the %s example maps to the rows and unmapped paths shown after it', (format, line, rows) => {
    const mapped = MAPPERS[format](JSON.parse(line.body));
    expect(mapped.error).toBeUndefined();
    expect({ rows: mapped.rows, unmapped: mapped.unmapped }).toEqual(JSON.parse(rows?.body ?? ''));
  });

  test('the jsonl example is one object per line, and the csv example reads as its first two rows', async () => {
    const jsonl = fences.find((fence) => fence.info === 'jsonl')?.body ?? '';
    const csv = fences.find((fence) => fence.info === 'csv')?.body ?? '';
    const jsonRows = await read(readJsonLines(Readable.from([Buffer.from(jsonl)])));
    expect(jsonRows.map((line) => ('error' in line ? line.error : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);

    const csvRows = await read(readCsv(Readable.from([Buffer.from(csv)])));
    // A CSV row's channel cells are the row's config.
    const asRows = csvRows.map((line) => {
      if ('error' in line) return line.error;
      const { userId, documentId, category, ...config } = line.value;
      return { userId, ...(documentId ? { documentId } : {}), ...(category ? { category } : {}), config };
    });
    expect(asRows).toEqual(jsonRows.slice(0, 2).map((line) => ('value' in line ? line.value : line.error)));
  });
});
