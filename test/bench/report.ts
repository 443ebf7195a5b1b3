import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

/** One checked goal: the measured value, the limit, and whether it holds. */
export interface Goal {
  name: string;
  measured: string;
  limit: string;
  met: boolean;
}

export interface Table {
  title: string;
  columns: string[];
  rows: (string | number)[][];
}

export interface Section {
  id: string;
  title: string;
  tables: Table[];
  goals: Goal[];
  notes: string[];
  /** Machine-readable figures for the JSON file. */
  data: Record<string, unknown>;
}

export const section = (id: string, title: string): Section => ({
  id,
  title,
  tables: [],
  goals: [],
  notes: [],
  data: {},
});

export const goal = (name: string, measured: string, limit: string, met: boolean): Goal => ({
  name,
  measured,
  limit,
  met,
});

export const machine = () => ({
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
  memory: `${Math.round(totalmem() / 1024 ** 3)} GiB`,
  /** 1-minute load average: other work on a shared machine shows here (and in the figures). */
  loadAverage: loadavg()[0]?.toFixed(2) ?? 'n/a',
});

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - text.length));

const textTable = ({ title, columns, rows }: Table): string => {
  const cells = [columns, ...rows.map((row) => row.map(String))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) => row.map((cell, i) => pad(cell, widths[i] as number)).join('  ');
  return [`  ${title}`, `  ${line(columns)}`, ...rows.map((row) => `  ${line(row.map(String))}`)].join('\n');
};

const markdownTable = ({ title, columns, rows }: Table): string =>
  [
    `**${title}**`,
    '',
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');

const goalLine = (g: Goal, scored: boolean) =>
  `${scored ? (g.met ? 'MET ' : 'MISS') : g.met ? 'met ' : 'miss'}  ${g.name}: ${g.measured} (goal ${g.limit})`;

/** A section as text; unscored (a quick run), the goals are shown in lower case and counted nowhere. */
export const renderText = (section: Section, { scored = true }: { scored?: boolean } = {}): string =>
  [
    `\n== ${section.title} ==`,
    ...section.tables.map(textTable),
    ...(section.goals.length
      ? [
          scored ? '  Goals:' : '  Goals (not scored: a quick run):',
          ...section.goals.map((g) => `    ${goalLine(g, scored)}`),
        ]
      : []),
    ...section.notes.map((note) => `  Note: ${note}`),
  ].join('\n');

export interface RunInfo {
  startedAt: string;
  /** Load average at the start of the run; machine() gives it at the end. */
  loadAtStart: string;
  durationMs: number;
  /** quick: small sizes, goals printed but not scored (CI's run). */
  mode: 'default' | 'full' | 'quick';
  command: string;
  machine: ReturnType<typeof machine>;
}

export const renderMarkdown = (info: RunInfo, sections: Section[]): string =>
  [
    `# Benchmark results (${info.mode} run)`,
    '',
    `${info.startedAt}, ${info.machine.cpus}, ${info.machine.memory}, Node ${info.machine.node}, ${info.machine.platform}, ` +
      `load average ${info.loadAtStart} at start and ${info.machine.loadAverage} at the end. ` +
      `Command: \`${info.command}\`; run time ${(info.durationMs / 1000).toFixed(0)} s.`,
    ...sections.flatMap((s) => [
      '',
      `## ${s.title}`,
      '',
      ...s.tables.flatMap((t) => [markdownTable(t), '']),
      ...(s.goals.length
        ? [
            '| Goal | Measured | Limit | Met |',
            '|---|---|---|---|',
            ...s.goals.map((g) => `| ${g.name} | ${g.measured} | ${g.limit} | ${g.met ? 'yes' : '**no**'} |`),
            '',
          ]
        : []),
      ...s.notes.map((note) => `- ${note}`),
    ]),
    '',
  ].join('\n');

/** Writes latest.{json,md} and a timestamped copy of each into `dir`. */
export const writeResults = async (dir: string, info: RunInfo, sections: Section[]): Promise<string[]> => {
  await mkdir(dir, { recursive: true });
  const stamp = info.startedAt.replaceAll(':', '-').replace(/\..*$/, '');
  const json = `${JSON.stringify({ ...info, sections }, null, 2)}\n`;
  const markdown = renderMarkdown(info, sections);
  const files: [string, string][] = [
    [`latest-${info.mode}.json`, json],
    [`latest-${info.mode}.md`, markdown],
    [`${stamp}-${info.mode}.json`, json],
    [`${stamp}-${info.mode}.md`, markdown],
  ];
  for (const [name, content] of files) await writeFile(join(dir, name), content);
  return files.map(([name]) => join(dir, name));
};
