/** DynamoDB's answer to a write whose condition did not hold. */
export const isConditionFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

/** Runs a conditional write: its output when applied, undefined when its condition did not hold. */
export const ifConditionHolds = async <T>(write: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await write();
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** Runs a conditional write: true when applied, false when its condition did not hold. */
export const conditional = async (write: () => Promise<unknown>): Promise<boolean> =>
  (await ifConditionHolds(async () => {
    await write();
    return true;
  })) ?? false;

/**
 * A conditional write that the SDK may send twice: an attempt answered after the client's socket
 * timeout can have taken effect, and the retry then meets that write and fails its condition.
 * When the condition fails, `isOwnWrite` reads back whether what is stored is this very write.
 */
export const conditionalOrOwn = async (
  write: () => Promise<unknown>,
  isOwnWrite: () => Promise<boolean>,
): Promise<boolean> => (await conditional(write)) || isOwnWrite();

/** Why a cancelled transaction was cancelled, item by item (DynamoDB's CancellationReasons). */
const cancellationCodes = (error: unknown): string[] | undefined => {
  const { name, CancellationReasons } = (error ?? {}) as {
    name?: string;
    CancellationReasons?: { Code?: string }[];
  };
  if (name !== 'TransactionCanceledException') return undefined;
  return (CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
};

/** A condition that did not hold, or a concurrent transaction: nothing was written, a later pass decides again. */
const NOT_WRITTEN = new Set(['None', 'ConditionalCheckFailed', 'TransactionConflict']);

/**
 * Runs a TransactWriteItems with conditions: true when applied, false when it was cancelled
 * because a condition did not hold or a concurrent transaction met the same items (nothing was
 * written); any other failure is thrown.
 */
export const conditionalTransaction = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.every((code) => NOT_WRITTEN.has(code))) return false;
    throw error;
  }
};
