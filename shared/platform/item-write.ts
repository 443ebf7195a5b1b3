/**
 * One conditional write of one item, said once as data and rendered as an UpdateItem (or
 * DeleteItem) expression, and as PartiQL statements for BatchExecuteStatement batches: UPDATE
 * and DELETE for items that exist (job pages' stamps and deletes, an import's changes of stored
 * entries), INSERT for one an import creates.
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
  /** The attribute (a time, or an epoch second) is absent or not later than the value. */
  | { kind: 'notAfter'; attribute: string; value: string | number }
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

/** One conditional delete of one item (`exists` and `equals` conditions: a missing item fails them). */
export interface ItemDelete {
  key: Record<string, string>;
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

/** An expression's attribute names and values, and the placeholders that add to them. */
const placeholders = () => {
  const names: Record<string, string> = {};
  const values: Record<string, Value> = {};
  return {
    names,
    values,
    name: (attribute: string) => {
      const placeholder = `#a${Object.keys(names).length}`;
      names[placeholder] = attribute;
      return placeholder;
    },
    value: (v: Value) => {
      const placeholder = `:v${Object.keys(values).length}`;
      values[placeholder] = v;
      return placeholder;
    },
  };
};

/** An UpdateItem's expression, names and values for the write (Key included). */
export const toUpdateItem = (write: ItemWrite) => {
  const { names, values, name, value } = placeholders();
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

/** A PartiQL string literal naming an attribute in an INSERT's item (same rule as `quoted`). */
const literal = (identifier: string): string => {
  if (identifier.includes("'")) throw new Error(`Unquotable PartiQL attribute name: ${identifier}`);
  return `'${identifier}'`;
};

/** A statement's WHERE: the item's key, then its conditions. */
const whereClause = ({ key, conditions }: Pick<ItemWrite, 'key' | 'conditions'>, p: (v: Value) => string): string => {
  const where = Object.entries(key).map(([attribute, v]) => `${quoted(attribute)} = ${p(v)}`);
  for (const condition of conditions) {
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
  return where.join(' AND ');
};

/** A statement's parameter list and the placeholder that appends to it. */
const parameterList = () => {
  const parameters: Value[] = [];
  return {
    parameters,
    p: (v: Value) => {
      parameters.push(v);
      return '?';
    },
  };
};

/** The write as a PartiQL UPDATE: applies only to an item that exists (else ConditionalCheckFailed), so never to a write that creates it. */
export const toPartiqlUpdate = (table: string, write: ItemWrite): Statement => {
  if (write.setIfMissing?.length) throw new Error('if_not_exists has no PartiQL rendering');
  const { parameters, p } = parameterList();
  const clauses = [
    ...write.set.map(([attribute, v]) => `SET ${quoted(attribute)} = ${p(v)}`),
    ...(write.increment ?? []).map((attribute) => `SET ${quoted(attribute)} = ${quoted(attribute)} + 1`),
    ...(write.addToSet ?? []).map(
      ([attribute, members]) => `SET ${quoted(attribute)} = set_add(${quoted(attribute)}, ${p(members)})`,
    ),
    ...(write.remove ?? []).map((attribute) => `REMOVE ${quoted(attribute)}`),
  ];
  const where = whereClause(write, p);
  return {
    Statement: `UPDATE ${quoted(table)} ${clauses.join(' ')} WHERE ${where}`,
    Parameters: parameters,
  };
};

/**
 * The write as a PartiQL INSERT of the item it creates where none exists: the key, what it sets
 * (if_not_exists values included), its counters at 1, its sets. An INSERT fails on an item that
 * exists (DuplicateItem), so it applies only where the update would create the item, and a
 * write whose conditions require a stored item has no INSERT rendering.
 */
export const toPartiqlInsert = (table: string, write: ItemWrite): Statement => {
  if (write.conditions.some(({ kind }) => kind === 'exists' || kind === 'equals')) {
    throw new Error('A write that requires a stored item has no PartiQL INSERT rendering');
  }
  const { parameters, p } = parameterList();
  const attributes: [string, Value][] = [
    ...Object.entries(write.key),
    ...write.set,
    ...(write.setIfMissing ?? []),
    ...(write.increment ?? []).map((attribute): [string, Value] => [attribute, 1]),
    ...(write.addToSet ?? []),
  ];
  const fields = attributes.map(([attribute, v]) => `${literal(attribute)}: ${p(v)}`);
  return { Statement: `INSERT INTO ${quoted(table)} VALUE {${fields.join(', ')}}`, Parameters: parameters };
};

/** The delete as a PartiQL DELETE: applies only while its conditions hold (else ConditionalCheckFailed). */
export const toPartiqlDelete = (table: string, del: ItemDelete): Statement => {
  const { parameters, p } = parameterList();
  return { Statement: `DELETE FROM ${quoted(table)} WHERE ${whereClause(del, p)}`, Parameters: parameters };
};

/** A DeleteItem's Key, condition, names and values for the delete. */
export const toDeleteItem = (del: ItemDelete) => {
  const { names, values, name, value } = placeholders();
  const conditions = del.conditions.map((condition) => updateItemCondition(condition, name, value));
  return {
    Key: del.key,
    ...(conditions.length
      ? {
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        }
      : {}),
  };
};
