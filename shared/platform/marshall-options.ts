/**
 * How the document client turns values into DynamoDB's: undefined fields left out, and every
 * object a map. The SDK takes an object for a map only if its `constructor.name` is `Object`,
 * so a map keyed by a caller's id named `constructor` (a policy's category) would be refused
 * as a class instance: converting "class instances" makes it a map like any other.
 */
export const MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: true } as const;
