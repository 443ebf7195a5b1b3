import { type ItemWrite, type Statement, toPartiqlInsert, toPartiqlUpdate } from './item-write.js';

/** DynamoDB's limit of statements in one BatchExecuteStatement call. */
export const PARTIQL_BATCH_LIMIT = 25;

/** Which statement a batch tries first for a write that may create its item. */
export type FirstTry = 'update' | 'insert';

export interface BatchOutcome {
  /** Indexes (into the writes given) of those not applied: the caller writes them one by one. */
  unwritten: number[];
  /**
   * Of `unwritten`, those refused by their condition when the batch ran (the item missing, or
   * not as the write requires), with no other statement left to try; the others were throttled,
   * unanswered or failed. A write whose condition only an unchanged item meets needs no retry.
   */
  conditionFailed: number[];
  /** Writes applied to an item that was there. */
  existing: number;
  /** Writes that created their item. */
  created: number;
}

type Kind = 'update' | 'insert';

/**
 * Sends one BatchExecuteStatement (the store's own call, so that its grants are read from the
 * store) and answers each statement's error code, undefined for those applied.
 */
export type ExecuteStatements = (statements: Statement[]) => Promise<(string | undefined)[]>;

/**
 * What one statement answered: applied; refused by its condition (the item's presence or
 * absence included: an UPDATE finds no item, an INSERT finds one); or failed otherwise.
 */
type Verdict = 'applied' | 'conditionFailed' | 'failed';
const verdict = (code: string | undefined): Verdict =>
  code === undefined
    ? 'applied'
    : code === 'ConditionalCheckFailed' || code === 'DuplicateItem'
      ? 'conditionFailed'
      : 'failed';

/**
 * Applies up to PARTIQL_BATCH_LIMIT conditional writes in one BatchExecuteStatement call (two
 * when some need the other statement kind). Each statement stands alone, as each entry does:
 * an UPDATE refused (the item missing, or its condition false) is retried as an INSERT when
 * the write may create its item, an INSERT refused (the item there) as an UPDATE; what is
 * still refused, throttled or failed is answered as unwritten, for the exact single writes.
 * A failed call answers every write unwritten, unless the signal fired (then it throws).
 */
export const writeBatch = async (
  execute: ExecuteStatements,
  table: string,
  writes: readonly ItemWrite[],
  firstTry: FirstTry,
  signal?: AbortSignal,
): Promise<BatchOutcome> => {
  if (writes.length > PARTIQL_BATCH_LIMIT) throw new Error(`At most ${PARTIQL_BATCH_LIMIT} writes per batch`);
  const outcome: BatchOutcome = { unwritten: [], conditionFailed: [], existing: 0, created: 0 };
  const rendered = writes.map((write) => ({
    update: toPartiqlUpdate(table, write),
    insert: toPartiqlInsert(table, write),
  }));
  const statementOf = (index: number, kind: Kind): Statement | undefined => rendered[index]?.[kind];

  const run = async (round: { index: number; kind: Kind }[]) => {
    if (round.length === 0) return [];
    try {
      const codes = await execute(round.map(({ index, kind }) => statementOf(index, kind) as Statement));
      return round.map((statement, i) => ({ ...statement, code: codes[i] }));
    } catch (error) {
      if (signal?.aborted) throw error;
      return round.map((statement) => ({ ...statement, code: 'CallFailed' }));
    }
  };
  const unwritten = (index: number, result: Verdict) => {
    outcome.unwritten.push(index);
    if (result === 'conditionFailed') outcome.conditionFailed.push(index);
  };
  const count = (kind: Kind) => {
    if (kind === 'insert') outcome.created++;
    else outcome.existing++;
  };

  const first = await run(
    writes.map((_, index) => ({
      index,
      kind: firstTry === 'insert' && statementOf(index, 'insert') ? 'insert' : 'update',
    })),
  );
  const retry: { index: number; kind: Kind }[] = [];
  for (const { index, kind, code } of first) {
    const other: Kind = kind === 'update' ? 'insert' : 'update';
    const result = verdict(code);
    if (result === 'applied') count(kind);
    else if (result === 'conditionFailed' && statementOf(index, other)) retry.push({ index, kind: other });
    else unwritten(index, result);
  }
  for (const { index, kind, code } of await run(retry)) {
    const result = verdict(code);
    if (result === 'applied') count(kind);
    else unwritten(index, result);
  }
  return outcome;
};
