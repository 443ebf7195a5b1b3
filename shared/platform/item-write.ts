/**
 * One conditional write of one item, said once and rendered in the two dialects DynamoDB
 * speaks: an UpdateItem expression (single writes, and the exact retries) and PartiQL (the
 * batches of BatchExecuteStatement, 25 statements a call, 1 write unit per item instead of the
 * 2 a transaction costs). An UPDATE statement never creates an item and an INSERT never
 * changes one, so a write that may create its item has both renderings (docs/design.md,
 * Batched writes).
 */

type Value = unknown;

/** A condition on the stored item. Each holds for an item that does not exist, except `exists`. */
export type Condition =
  /** The item exists. */
  | { kind: 'exists'; attribute: string }
  /** The attribute holds exactly the value (so the item exists). */
  | { kind: 'equals'; attribute: string; value: Value }
  /** The attribute is absent. */
  | { kind: 'missing'; attribute: string }
  /** The attribute (a time) is absent or not later than the value. */
  | { kind: 'notAfter'; attribute: string; value: string }
  /** The string set is absent, holds the member, or has fewer than `max` members. */
  | { kind: 'roomFor'; attribute: string; member: string; max: number };

export interface ItemWrite {
  key: Record<string, string>;
  /** SET attribute = value. */
  set: [attribute: string, value: Value][];
  /** SET attribute = if_not_exists(attribute, value): UpdateItem only (no PartiQL rendering). */
  setIfMissing?: [attribute: string, value: Value][];
  remove?: string[];
  /** A number attribute increased by 1 (an item created by the write starts at 1). */
  increment?: string[];
  /** Members added to a string set. */
  addToSet?: [attribute: string, members: Set<string>][];
  conditions: Condition[];
}

/** A condition in UpdateItem's expression language. */
const updateItemCondition = (
  condition: Condition,
  name: (attribute: string) => string,
  value: (v: Value) => string,
): string => {
  const n = name(condition.attribute);
  switch (condition.kind) {
    case 'exists':
      return `attribute_exists(${n})`;
    case 'equals':
      return `${n} = ${value(condition.value)}`;
    case 'missing':
      return `attribute_not_exists(${n})`;
    case 'notAfter':
      return `(attribute_not_exists(${n}) OR ${n} <= ${value(condition.value)})`;
    case 'roomFor':
      return `(attribute_not_exists(${n}) OR contains(${n}, ${value(condition.member)}) OR size(${n}) < ${value(condition.max)})`;
  }
};

/** An UpdateItem's expression, names and values for the write (Key included). */
export const toUpdateItem = (write: ItemWrite) => {
  const names: Record<string, string> = {};
  const values: Record<string, Value> = {};
  const name = (attribute: string) => {
    const placeholder = `#a${Object.keys(names).length}`;
    names[placeholder] = attribute;
    return placeholder;
  };
  const value = (v: Value) => {
    const placeholder = `:v${Object.keys(values).length}`;
    values[placeholder] = v;
    return placeholder;
  };
  const sets = [
    ...write.set.map(([attribute, v]) => `${name(attribute)} = ${value(v)}`),
    ...(write.setIfMissing ?? []).map(([attribute, v]) => {
      const n = name(attribute);
      return `${n} = if_not_exists(${n}, ${value(v)})`;
    }),
  ];
  const removes = (write.remove ?? []).map(name);
  const adds = [
    ...(write.increment ?? []).map((attribute) => `${name(attribute)} ${value(1)}`),
    ...(write.addToSet ?? []).map(([attribute, members]) => `${name(attribute)} ${value(members)}`),
  ];
  const conditions = write.conditions.map((condition) => updateItemCondition(condition, name, value));
  return {
    Key: write.key,
    UpdateExpression: [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
      adds.length ? `ADD ${adds.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
    ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
};

/** A PartiQL statement with its parameters, in the DocumentClient's native values. */
export interface Statement {
  Statement: string;
  Parameters: Value[];
}

/**
 * A quoted PartiQL identifier. This service's table and attribute names never hold a double
 * quote (category ids are [a-z0-9._-]); one that did would be a bug, not input to escape.
 */
const quoted = (identifier: string): string => {
  if (identifier.includes('"')) throw new Error(`Unquotable PartiQL identifier: ${identifier}`);
  return `"${identifier}"`;
};

/** The write as a PartiQL UPDATE: applies only to an item that exists (else ConditionalCheckFailed). */
export const toPartiqlUpdate = (table: string, write: ItemWrite): Statement => {
  if (write.setIfMissing?.length) throw new Error('if_not_exists has no PartiQL rendering');
  const parameters: Value[] = [];
  const p = (v: Value) => {
    parameters.push(v);
    return '?';
  };
  const clauses = [
    ...write.set.map(([attribute, v]) => `SET ${quoted(attribute)} = ${p(v)}`),
    ...(write.increment ?? []).map((attribute) => `SET ${quoted(attribute)} = ${quoted(attribute)} + 1`),
    ...(write.addToSet ?? []).map(
      ([attribute, members]) => `SET ${quoted(attribute)} = set_add(${quoted(attribute)}, ${p(members)})`,
    ),
    ...(write.remove ?? []).map((attribute) => `REMOVE ${quoted(attribute)}`),
  ];
  const where = Object.entries(write.key).map(([attribute, v]) => `${quoted(attribute)} = ${p(v)}`);
  for (const condition of write.conditions) {
    const n = quoted(condition.attribute);
    switch (condition.kind) {
      case 'exists':
        where.push(`${n} IS NOT MISSING`);
        break;
      case 'equals':
        where.push(`${n} = ${p(condition.value)}`);
        break;
      case 'missing':
        where.push(`${n} IS MISSING`);
        break;
      case 'notAfter':
        where.push(`(${n} IS MISSING OR ${n} <= ${p(condition.value)})`);
        break;
      case 'roomFor':
        where.push(`(${n} IS MISSING OR contains(${n}, ${p(condition.member)}) OR size(${n}) < ${p(condition.max)})`);
        break;
    }
  }
  return {
    Statement: `UPDATE ${quoted(table)} ${clauses.join(' ')} WHERE ${where.join(' AND ')}`,
    Parameters: parameters,
  };
};

/**
 * The write as a PartiQL INSERT: the item it creates when none exists (else DuplicateItem).
 * Undefined when the write must not create its item (it requires the item to exist, or to hold a value).
 */
export const toPartiqlInsert = (table: string, write: ItemWrite): Statement | undefined => {
  if (write.conditions.some((condition) => condition.kind === 'exists' || condition.kind === 'equals'))
    return undefined;
  const parameters: Value[] = [];
  const fields: string[] = [];
  const field = (attribute: string, v: Value) => {
    if (attribute.includes("'")) throw new Error(`Unquotable PartiQL attribute: ${attribute}`);
    parameters.push(v);
    fields.push(`'${attribute}': ?`);
  };
  for (const [attribute, v] of Object.entries(write.key)) field(attribute, v);
  for (const [attribute, v] of [...write.set, ...(write.setIfMissing ?? [])]) field(attribute, v);
  for (const attribute of write.increment ?? []) field(attribute, 1);
  for (const [attribute, members] of write.addToSet ?? []) field(attribute, members);
  return { Statement: `INSERT INTO ${quoted(table)} VALUE {${fields.join(', ')}}`, Parameters: parameters };
};
