import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { REPO_ROOT } from '#service/repository-root.js';
import { mapKnockLine, mapNovuLine } from '#shared/imports/formats.js';
import { type ReadLine, readCsv, readJsonLines } from '#shared/imports/read.js';
import { type CheckedLine, checkLine, type LineContext } from '#shared/imports/rows.js';

// docs/imports.md shows each format with an example: the knock and novu lines map to exactly the
// rows and unmapped paths the block after each one shows, every example line is accepted by the
// import's own checks, and the csv example asks for what the jsonl one's first two lines do, so
// that the document and the code cannot drift apart.
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
const CONTEXT: LineContext = {
  organizationId: 'acme',
  importId: 'i-1',
  policy: {},
  checkedAt: new Date('2026-12-07T10:00:00Z'),
};

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

  test.each(examples)(
    'the %s example is accepted as an import line: a change per row, the rest reported',
    (format, line, rows) => {
      const checked = checkLine(
        format,
        { line: 1, value: JSON.parse(line.body) },
        { organizationId: 'acme', importId: 'i-1', policy: {}, checkedAt: new Date('2026-12-07T10:00:00Z') },
      );
      const shown = JSON.parse(rows?.body ?? '') as {
        rows: { category?: string; config: object }[];
        unmapped: string[];
      };
      expect(checked).not.toHaveProperty('error');
      if ('error' in checked) return;
      expect(checked.changes.map(({ category, config }) => ({ category, config }))).toEqual(
        shown.rows.map(({ category, config }) => ({ category, config })),
      );
      expect(checked.unmapped).toEqual(shown.unmapped);
    },
  );

  test('the jsonl example is accepted line by line, and the csv example asks for the same changes as its first two lines', async () => {
    const jsonl = fences.find((fence) => fence.info === 'jsonl')?.body ?? '';
    const csv = fences.find((fence) => fence.info === 'csv')?.body ?? '';
    const jsonLines = (await read(readJsonLines(Readable.from([Buffer.from(jsonl)])))).map((line) =>
      checkLine('jsonl', line, CONTEXT),
    );
    expect(jsonLines.map((line) => ('error' in line ? line.error : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);

    const csvLines = (await read(readCsv(Readable.from([Buffer.from(csv)])))).map((line) =>
      checkLine('csv', line, CONTEXT),
    );
    const changes = (lines: CheckedLine[]) => lines.map((line) => ('error' in line ? line.error : line.changes));
    expect(changes(csvLines)).toEqual(changes(jsonLines.slice(0, 2)));
  });
});
