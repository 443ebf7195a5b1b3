import { CHANNELS } from '#shared/api/channels.js';
import type { ChannelConfig, StoredEntry } from '#shared/preferences/model.js';
import { isTombstone } from '#shared/preferences/tombstone.js';
import type { Schedule } from '#shared/schedules/schema.js';

/** The formats of a file: an import reads them all (contract 15.1), an export writes jsonl or csv. */
export const EXPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * One row of the import's format (contract 15.1): a user's channels in one document (absent: the
 * organization level) and one category layer (absent: the all-categories layer), and at the
 * organization level the user's schedule.
 */
export interface Row {
  userId: string;
  documentId?: string;
  category?: string;
  config?: ChannelConfig;
  schedule?: Schedule;
}

/** The CSV columns, in this order: the header of an export, and what an import's header may name. */
export const CSV_COLUMNS = ['userId', 'documentId', 'category', ...CHANNELS] as const;

const hasChannels = (config: ChannelConfig | undefined): config is ChannelConfig =>
  config !== undefined && Object.keys(config).length > 0;

/**
 * An entry's rows: its all-categories layer (with the schedule, on the organization-level entry),
 * then each category layer with channels. A tombstone (a reset entry kept a while) has none.
 */
export const rowsOf = (entry: StoredEntry): Row[] => {
  if (isTombstone(entry)) return [];
  const base = { userId: entry.userId, ...(entry.documentId === null ? {} : { documentId: entry.documentId }) };
  const rows: Row[] = [];
  if (hasChannels(entry.config) || entry.schedule) {
    rows.push({
      ...base,
      ...(hasChannels(entry.config) ? { config: entry.config } : {}),
      ...(entry.schedule ? { schedule: entry.schedule } : {}),
    });
  }
  for (const [category, layer] of Object.entries(entry.categories ?? {})) {
    if (hasChannels(layer.config)) rows.push({ ...base, category, config: layer.config });
  }
  return rows;
};

/** RFC 4180: a cell with a comma, a quote or a line break is quoted, its quotes doubled. */
const csvCell = (value: string | undefined): string =>
  value === undefined ? '' : /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;

export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

/**
 * A row as a line of the format. CSV has no column for a schedule: a row that carries only a
 * schedule has no CSV line (docs/api.md says a CSV export leaves schedules out).
 */
export const formatRow = (row: Row, format: ExportFormat): string | undefined => {
  if (format === 'jsonl') return `${JSON.stringify(row)}\n`;
  if (!row.config) return undefined;
  const config = row.config;
  return `${[row.userId, row.documentId, row.category, ...CHANNELS.map((channel) => config[channel])].map(csvCell).join(',')}\r\n`;
};
