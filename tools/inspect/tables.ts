import { type DynamoDBClient, paginateListTables } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { TABLE_LIST } from '#service/tables.js';
import { escapeKeyPart } from '#shared/platform/key-parts.js';
import { printable } from '../cli/output.js';

/**
 * The twin's tables: without an organization, each table's item count and the organizations in
 * it; with one, that organization's items, table by table. Read with Scan (a local store is
 * small), never written.
 */

type Item = Record<string, unknown>;

/** What no listing shows: a credential's token hash is enough to check a guessed token offline. */
const HIDDEN_ATTRIBUTES = new Set(['tokenHash']);

/** What each table holds, in the listing's words. */
const PURPOSE: Record<string, string> = {
  config: 'preferences, and each organization policy and webhook endpoints',
  migrations: 'jobs: migrations and erasures, their records and locks',
  credentials: 'API credentials',
  limits: 'request rate per credential',
  history: 'change history, and webhook delivery attempts',
};

const keysOf = (tableName: string) => {
  const table = TABLE_LIST.find((t) => t.localName === tableName);
  return { partitionKey: table?.partitionKey ?? 'pk', sortKey: table?.sortKey };
};

/**
 * Whether an item is the organization's: by its `organizationId` when it has one (entries,
 * history, policies, job records and locks all do); else by its partition key, whose second
 * `#`-separated part is the escaped organization id in every kind of key that names one.
 */
const belongsTo = (item: Item, organizationId: string, partitionKey: string): boolean => {
  if (typeof item.organizationId === 'string') return item.organizationId === organizationId;
  const key = item[partitionKey];
  return typeof key === 'string' && key.split('#')[1] === escapeKeyPart(organizationId);
};

/** A credential granted the organization (every one, or it among others). */
const grants = (item: Item, organizationId: string): boolean => {
  const granted = item.organizationIds;
  if (granted === '*') return true;
  if (Array.isArray(granted) || granted instanceof Set) return [...granted].includes(organizationId);
  return false;
};

const scanAll = async (doc: DynamoDBDocumentClient, TableName: string): Promise<Item[]> => {
  const items: Item[] = [];
  for await (const page of paginateScan({ client: doc }, { TableName })) items.push(...(page.Items ?? []));
  return items;
};

const compare = (a: unknown, b: unknown) => String(a ?? '').localeCompare(String(b ?? ''));

/** `pk  sk  {the other attributes}`, printable whatever the identifiers hold. */
const itemLine = (item: Item, partitionKey: string, sortKey: string | undefined): string => {
  const rest = Object.fromEntries(
    Object.entries(item)
      .filter(([name]) => name !== partitionKey && name !== sortKey && !HIDDEN_ATTRIBUTES.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  const key = [item[partitionKey], ...(sortKey ? [item[sortKey]] : [])].map((part) => JSON.stringify(part));
  return printable(
    `    ${key.join('  ')}  ${JSON.stringify(rest, (_, value) => (value instanceof Set ? [...value] : value))}`,
  );
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export interface Stores {
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
}

const tableNames = async ({ dynamo }: Stores): Promise<string[]> => {
  const names: string[] = [];
  for await (const page of paginateListTables({ client: dynamo }, {})) names.push(...(page.TableNames ?? []));
  // The service's tables in their own order, then any other.
  const order = TABLE_LIST.map((t) => t.localName as string);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
};

/** Every table with its item count and the organizations its items name. */
const overview = async (stores: Stores): Promise<string[]> => {
  const lines = ["Tables (--org ID lists an organization's items):"];
  for (const name of await tableNames(stores)) {
    const items = await scanAll(stores.doc, name);
    const counts = new Map<string, number>();
    for (const item of items) {
      if (typeof item.organizationId === 'string') {
        counts.set(item.organizationId, (counts.get(item.organizationId) ?? 0) + 1);
      }
    }
    const organizations = [...counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([organizationId, n]) => `${JSON.stringify(organizationId)} ${n}`);
    lines.push(
      printable(
        `  ${name}: ${plural(items.length, 'item')}${PURPOSE[name] ? ` (${PURPOSE[name]})` : ''}` +
          (organizations.length ? `; by organization: ${organizations.join(', ')}` : ''),
      ),
    );
  }
  return lines;
};

/** One organization's items in every table; credentials granted it, and their rate items. */
const ofOrganization = async (stores: Stores, organizationId: string, limit: number) => {
  const lines = [printable(`Tables, organization ${JSON.stringify(organizationId)}:`)];
  const names = await tableNames(stores);
  const items = new Map<string, Item[]>();
  for (const name of names) items.set(name, await scanAll(stores.doc, name));
  const credentialKeys = new Set(
    (items.get('credentials') ?? []).filter((item) => grants(item, organizationId)).map((item) => item.apiKey),
  );
  for (const name of names) {
    const { partitionKey, sortKey } = keysOf(name);
    const all = items.get(name) ?? [];
    const mine = all
      .filter((item) =>
        name === 'credentials'
          ? grants(item, organizationId)
          : name === 'limits'
            ? credentialKeys.has(item[partitionKey])
            : belongsTo(item, organizationId, partitionKey),
      )
      .sort((a, b) => compare(a[partitionKey], b[partitionKey]) || (sortKey ? compare(a[sortKey], b[sortKey]) : 0));
    const what = name === 'credentials' ? ' granted it' : name === 'limits' ? ' of those credentials' : '';
    lines.push(
      `  ${name}: ${mine.length} of ${plural(all.length, 'item')}${what}${PURPOSE[name] ? ` (${PURPOSE[name]})` : ''}`,
    );
    const shown = limit > 0 ? mine.slice(0, limit) : mine;
    for (const item of shown) lines.push(itemLine(item, partitionKey, sortKey));
    if (shown.length < mine.length) lines.push(`    ... ${mine.length - shown.length} more (--limit 0 shows all)`);
  }
  return lines;
};

export const inspectTables = (stores: Stores, organizationId: string | undefined, limit: number): Promise<string[]> =>
  organizationId === undefined ? overview(stores) : ofOrganization(stores, organizationId, limit);
