import { fileURLToPath } from 'node:url';
import { runChild } from './child.js';
import { goal, type Section, section } from './report.js';
import { fmtMs, fmtNum, median } from './stats.js';

/** An export page of 1,000 records answers within this on the twin. */
const EXPORT_PAGE_GOAL_MS = 1_000;
/** DynamoDB bills a write 1 unit per KB of the item: evidence may add at most one. */
const WRITE_UNIT_BYTES = 1_024;

interface ConsentFigures {
  plain: Record<string, number>;
  stated: Record<string, number>;
  entryBytes: { plain: number; stated: number };
  resolveReads: { plain: Record<string, number>; stated: Record<string, number> };
  pageMs: number[];
  records: number;
  changes: number;
}

const CHILD = fileURLToPath(new URL('./consent-child.ts', import.meta.url));

const writes = (calls: Record<string, number>) =>
  Object.entries(calls)
    .filter(([action]) => /(Put|Update|Delete|BatchWrite)Item$/.test(action))
    .reduce((sum, [, count]) => sum + count, 0);
const reads = (calls: Record<string, number>) =>
  Object.entries(calls)
    .filter(([action]) => /(Get|BatchGet)Item$|Query$/.test(action))
    .reduce((sum, [, count]) => sum + count, 0);

/**
 * Consent evidence (docs/api.md, Consent evidence) and the export, through the twin: a set that
 * states a consent (its 1 KB text stored before) makes the write calls of one that does not, its
 * evidence adds at most one write unit to an entry, resolve reads nothing more, and an export
 * page of 1,000 records answers within a second.
 */
export const consentBench = async ({ users, pages }: { users: number; pages: number }): Promise<Section[]> => {
  const s = section('consent', 'Consent evidence and the export');
  const f = await runChild<ConsentFigures>(CHILD, [String(users), String(pages)]);
  s.tables.push({
    title: `config/set of ${fmtNum(users)} users x 1 document, and resolve over them`,
    columns: ['set', 'write calls', 'entry bytes', 'resolve read calls'],
    rows: [
      ['without consent', writes(f.plain), f.entryBytes.plain, reads(f.resolveReads.plain)],
      ['with consent (1 KB text)', writes(f.stated), f.entryBytes.stated, reads(f.resolveReads.stated)],
    ],
  });
  s.tables.push({
    title: `users/export of ${fmtNum(f.changes)} changes: ${f.pageMs.length} pages, ${fmtNum(f.records)} records`,
    columns: ['page', 'time'],
    rows: f.pageMs.map((ms, i) => [i + 1, fmtMs(ms)]),
  });
  s.goals.push(
    goal(
      'a set with consent makes as many write calls as one without',
      `${writes(f.stated)} vs ${writes(f.plain)}`,
      'equal',
      writes(f.stated) === writes(f.plain),
    ),
  );
  const added = f.entryBytes.stated - f.entryBytes.plain;
  s.goals.push(
    goal(
      "a 1 KB text's evidence adds at most one write unit to an entry",
      `${fmtNum(added)} bytes more`,
      `<= ${WRITE_UNIT_BYTES} bytes`,
      added <= WRITE_UNIT_BYTES,
    ),
  );
  s.goals.push(
    goal(
      'config/resolve reads nothing more',
      `${reads(f.resolveReads.stated)} vs ${reads(f.resolveReads.plain)}`,
      'equal',
      reads(f.resolveReads.stated) === reads(f.resolveReads.plain),
    ),
  );
  const full = f.pageMs.slice(0, Math.floor(f.records / 1_000));
  const worst = Math.max(...full);
  s.goals.push(
    goal(
      'an export page of 1,000 records answers within 1 s on the twin',
      `median ${fmtMs(median(full))}, slowest ${fmtMs(worst)}`,
      `<= ${fmtMs(EXPORT_PAGE_GOAL_MS)}`,
      worst <= EXPORT_PAGE_GOAL_MS,
    ),
  );
  s.notes.push(
    'Entry bytes are the item as JSON, a close stand-in for its DynamoDB size; the text itself is stored once per organization, apart from the entries.',
  );
  s.data = { ...f };
  return [s];
};
