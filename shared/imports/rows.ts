import * as z from 'zod/mini';
import { categoryId } from '#shared/api/categories.js';
import { ApiError } from '#shared/api/errors.js';
import { identifier } from '#shared/api/identifiers.js';
import { checkValue } from '#shared/api/schema-issues.js';
import { apiEvidence, type ConsentRequest } from '#shared/consent/consent.js';
import type { ImportEvidence } from '#shared/consent/evidence.js';
import type { Policy } from '#shared/policy/model.js';
import { assertUnlocked } from '#shared/preferences/locks.js';
import type { ChannelConfig, EntryKey } from '#shared/preferences/model.js';
import { channelConfig, consent } from '#shared/preferences/schemas.js';
import { type Schedule, schedule } from '#shared/schedules/schema.js';
import { mapKnockLine, mapNovuLine } from './formats.js';
import type { ImportFormat, ReadLine } from './read.js';

/*
 * An import file's lines checked as a set is checked (contract 15.1): identifiers, categories,
 * values, consent and the policy's locks. A line becomes the changes it asks for, or is rejected
 * whole with the reason; nothing of a rejected line is applied.
 */

/** One row of the `jsonl` format; the other formats are mapped to it. */
export const importRow = z.strictObject({
  userId: identifier('userId'),
  documentId: z.optional(z.nullable(identifier('documentId'))),
  category: z.optional(z.nullable(categoryId('category'))),
  config: z.optional(channelConfig),
  schedule: z.optional(z.nullable(schedule())),
  consent,
});
export type ImportRow = z.infer<typeof importRow>;

/** What a line asks to write to one entry's layer: its channels, or (at the organization level) the schedule. */
export interface ImportChange {
  key: EntryKey;
  /** The layer: a category's, or the all-categories one when absent. */
  category?: string;
  config?: ChannelConfig;
  /** Absent: not named; null: removed. */
  schedule?: Schedule | null;
  evidence: ImportEvidence;
  /** The consent text the evidence refers to by its hash, stored before the change. */
  consentText?: string;
}

export type CheckedLine =
  | { line: number; changes: ImportChange[]; unmapped: readonly string[] }
  | { line: number; error: string };

export interface LineContext {
  organizationId: string;
  importId: string;
  policy: Policy;
  /** The time consent capture times are checked against: the import's creation, the same for every run. */
  checkedAt: Date;
}

/** A CSV record's cells as the jsonl row they stand for. */
const csvRow = (value: Record<string, unknown>): Record<string, unknown> => {
  const { userId, documentId, category, ...channels } = value;
  return { userId, documentId, category, config: channels };
};

/** The rows a line of `format` stands for, and what it holds that has no equivalent here. */
const rowsOfLine = (
  format: ImportFormat,
  value: Record<string, unknown>,
): { rows: unknown[]; unmapped: string[]; error?: string } => {
  if (format === 'jsonl') return { rows: [value], unmapped: [] };
  if (format === 'csv') return { rows: [csvRow(value)], unmapped: [] };
  const mapped = format === 'knock' ? mapKnockLine(value) : mapNovuLine(value);
  return mapped.error === undefined ? mapped : { ...mapped, error: mapped.error };
};

/** Nothing unmapped: one array for every line of the formats that map everything. */
const NOTHING_UNMAPPED: readonly string[] = Object.freeze([]);

// A page holds its lines until it is written: the evidence of a row that states no consent is
// the same for every such row of an import, so they share one (frozen: nothing writes to it).
const plainEvidence = new WeakMap<LineContext, ImportEvidence>();

const evidenceOf = (context: LineContext, stated: ConsentRequest | undefined): ImportEvidence => {
  const plain = stated === undefined ? plainEvidence.get(context) : undefined;
  if (plain) return plain;
  const { via: _api, ...fields } = apiEvidence(stated, context.checkedAt);
  const evidence: ImportEvidence = { via: 'import', importId: context.importId, ...fields };
  if (stated === undefined) plainEvidence.set(context, Object.freeze(evidence));
  return evidence;
};

/** One row's change, or why it is refused. */
const changeOf = (row: unknown, context: LineContext): ImportChange | string => {
  const checked = checkValue(importRow, row, 'The row');
  if (!checked.success) return checked.message;
  const { userId, documentId, category, config, schedule: rowSchedule, consent: stated } = checked.data;
  if (config === undefined && rowSchedule === undefined) return 'The row sets neither config nor schedule';
  if (rowSchedule !== undefined && (documentId != null || category != null)) {
    return "A schedule is the user's in the whole organization: a row with one names no documentId or category";
  }
  try {
    if (config) assertUnlocked(context.policy, config, category ?? undefined);
    return {
      key: { organizationId: context.organizationId, userId, documentId: documentId ?? null },
      ...(category == null ? {} : { category }),
      ...(config ? { config } : {}),
      ...(rowSchedule === undefined ? {} : { schedule: rowSchedule }),
      evidence: evidenceOf(context, stated),
      ...(stated?.text === undefined ? {} : { consentText: stated.text }),
    };
  } catch (error) {
    if (error instanceof ApiError) return error.message;
    throw error;
  }
};

/** A line of the file as the changes it asks for, or rejected with its reason. */
export const checkLine = (format: ImportFormat, read: ReadLine, context: LineContext): CheckedLine => {
  if ('error' in read) return read;
  const { rows, unmapped, error } = rowsOfLine(format, read.value);
  if (error !== undefined) return { line: read.line, error };
  if (rows.length === 0) {
    return { line: read.line, error: `Nothing on the line has an equivalent here (${unmapped.join(', ') || 'empty'})` };
  }
  const changes: ImportChange[] = [];
  for (const row of rows) {
    const change = changeOf(row, context);
    if (typeof change === 'string') return { line: read.line, error: change };
    changes.push(change);
  }
  return { line: read.line, changes, unmapped: unmapped.length === 0 ? NOTHING_UNMAPPED : unmapped };
};
