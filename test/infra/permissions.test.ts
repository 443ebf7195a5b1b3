import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MIGRATION_ENTRIES_GRANTS } from '#service/migration-entries-grants.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { CONSENT_TEXT_STORE_GRANTS } from '#shared/consent/text-store.js';
import { LAST_ERASURE_GRANTS } from '#shared/erasure/last-erasure.js';
import type { StoreAccess } from '#shared/platform/route.js';
import { USER_INDEX } from '#shared/preferences/keys.js';
import { ERASURE_ENTRY_STORE_GRANTS, PREFERENCE_STORE_GRANTS } from '#shared/preferences/store-grants.js';
import { OPERATIONS } from '#tools/openapi/operations.js';
import {
  type Json,
  type Resources,
  resourceById,
  SHARED_SYNTH_TIMEOUT_MS,
  type Synthesized,
  sharedSynth,
} from './synth.js';

// Without an AWS account, a missing permission would only show as AccessDenied after a
// deploy. So the grants are checked against the code: which adapter methods each function's
// use case calls, and what those methods send: for the config table's entry stores, as each
// operation declares it (shared/preferences/store-grants.ts, held to the calls it makes by
// test/unit/store-grants.test.ts); for the other adapters, the SDK commands in their source
// (following this.method() calls inside the adapter). A new call in the use cases, or a new
// command in an adapter, that the stack does not grant fails here; so does a grant the code no
// longer needs.

const source = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

const COMMAND_ACTIONS: Record<string, string | string[]> = {
  GetCommand: 'dynamodb:GetItem',
  BatchGetCommand: 'dynamodb:BatchGetItem',
  QueryCommand: 'dynamodb:Query',
  ScanCommand: 'dynamodb:Scan',
  PutCommand: 'dynamodb:PutItem',
  UpdateCommand: 'dynamodb:UpdateItem',
  DeleteCommand: 'dynamodb:DeleteItem',
  BatchWriteCommand: 'dynamodb:BatchWriteItem',
  SendMessageCommand: 'sqs:SendMessage',
};

/** IAM checks each action inside a transaction: those a method's transaction holds (`{ Put: …}`, `{ Update }`). */
const TRANSACTION_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};
const transactionActions = (chunk: string): string[] => [
  ...new Set(
    [...chunk.matchAll(/\{\s*(Put|Update|Delete|ConditionCheck)\s*[}:]/g)].map(
      (m) => TRANSACTION_ACTIONS[m[1] as string] as string,
    ),
  ),
];

/** Actions per method of an adapter class, through calls to its own methods. */
const adapterActions = (
  path: string,
  className: string,
  base?: { path: string; className: string },
): Map<string, Set<string>> => {
  const text = source(path);
  const start = text.indexOf(`export class ${className}`);
  expect(start).toBeGreaterThanOrEqual(0);
  const body = text.slice(start);
  const methods = new Map<string, { actions: string[]; calls: string[] }>();
  // A base class's methods first: the class's own of the same name replace them, and its calls reach them.
  if (base)
    for (const [name, actions] of adapterActions(base.path, base.className)) {
      methods.set(name, { actions: [...actions], calls: [] });
    }
  const headers = [...body.matchAll(/^ {2}(?:(?:private|public|protected|async|static) )*(\w+)\s*[(<]/gm)];
  headers.forEach((header, i) => {
    const chunk = body.slice(header.index, headers[i + 1]?.index ?? body.length);
    const commands = [...chunk.matchAll(/new (\w+Command)\(/g)].map((m) => m[1] as string);
    methods.set(header[1] as string, {
      actions: commands.flatMap((command) =>
        command === 'TransactWriteCommand'
          ? transactionActions(chunk)
          : [COMMAND_ACTIONS[command] ?? `unknown:${command}`].flat(),
      ),
      calls: [...chunk.matchAll(/this\.(\w+)\(/g)].map((m) => m[1] as string),
    });
  });
  const resolve = (name: string, seen = new Set<string>()): Set<string> => {
    const method = methods.get(name);
    if (!method || seen.has(name)) return new Set();
    seen.add(name);
    const actions = new Set(method.actions);
    for (const callee of method.calls) for (const action of resolve(callee, seen)) actions.add(action);
    return actions;
  };
  return new Map([...methods.keys()].map((name) => [name, resolve(name)]));
};

/** What each operation of an entry store declares on the config table (store-grants.ts), as IAM actions. */
const declaredActions = (grants: Record<string, StoreAccess>): Map<string, Set<string>> =>
  new Map(
    Object.entries(grants).map(([operation, access]) => [
      operation,
      new Set((access.tables?.config ?? []).map((action) => `dynamodb:${action}`)),
    ]),
  );

/** A top-level `export const name = …` section of a module (up to the next top-level export). */
const exported = (path: string, name: string): string => {
  const text = source(path);
  const start = text.indexOf(`export const ${name} =`);
  expect(start).toBeGreaterThanOrEqual(0);
  const next = text.indexOf('\nexport ', start + 1);
  return text.slice(start, next < 0 ? text.length : next);
};

/** Methods called on `receiver` (e.g. `repository.get(`) in some code. */
const calledOn = (code: string, receiver: string): string[] => [
  ...new Set(
    [...code.matchAll(new RegExp(`\\b${receiver.replaceAll('.', '\\.')}\\.(\\w+)\\(`, 'g'))].map((m) => m[1] as string),
  ),
];

const actionsOf = (adapter: Map<string, Set<string>>, methods: string[]): string[] => {
  const actions = new Set<string>();
  for (const method of methods) {
    const found = adapter.get(method);
    if (!found) throw new Error(`No adapter method ${method}`);
    for (const action of found) actions.add(action);
  }
  return [...actions].sort();
};

let s: Synthesized;
let resources: Resources;
// The run's shared synthesis of cdk.json's `dev` stage (test/infra/synth.ts).
beforeAll(async () => {
  s = await sharedSynth('dev');
  resources = s.template.toJSON().Resources as Resources;
}, SHARED_SYNTH_TIMEOUT_MS);
afterAll(() => s?.cleanup());

type FunctionKey = keyof Synthesized['stack']['functions'];

/** A statement's resource as '<logical id>', or '<logical id>/index/<name>' for an index ARN (Fn::Join). */
const targetOf = (resource: Json): unknown => {
  const joined = resource?.['Fn::Join'];
  if (joined?.[0] === '')
    return (joined[1] as Json[]).map((part) => (typeof part === 'string' ? part : targetOf(part))).join('');
  return resource?.['Fn::GetAtt']?.[0] ?? resource?.Ref ?? resource;
};

/**
 * Granted actions of a function on one resource (by logical id prefix; a table's indexes are
 * resources of their own, `<prefix>/index/<name>`), minus what the event source needs.
 */
const granted = (key: FunctionKey, resourcePrefix: string): string[] => {
  const fn = resourceById(resources, s.logicalId(s.stack.functions[key].function)).Properties;
  const roleId: string = fn.Role['Fn::GetAtt'][0];
  const actions = new Set<string>();
  for (const policy of Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Policy')) {
    if (!policy.Properties.Roles.some((r: Json) => r.Ref === roleId)) continue;
    for (const st of policy.Properties.PolicyDocument.Statement as Json[]) {
      const targets = [st.Resource].flat().map(targetOf);
      const matches = (t: unknown) =>
        typeof t === 'string' &&
        t.startsWith(resourcePrefix) &&
        (resourcePrefix.includes('/index/') || !t.includes('/index/'));
      if (!targets.some(matches)) continue;
      for (const action of [st.Action].flat()) actions.add(action);
    }
  }
  // Receiving is the event source mapping's doing, not the function code's.
  for (const consume of [
    'ReceiveMessage',
    'ChangeMessageVisibility',
    'GetQueueUrl',
    'DeleteMessage',
    'GetQueueAttributes',
  ]) {
    actions.delete(`sqs:${consume}`);
  }
  return [...actions].sort();
};

describe('grants match what the code calls', () => {
  const preferences = () => declaredActions(PREFERENCE_STORE_GRANTS);
  // Migrations and erasures alike: the job engine's repository and queue (shared/jobs/).
  const migrations = () =>
    adapterActions('shared/jobs/repository.ts', 'DynamoJobRepository', {
      path: 'shared/jobs/records.ts',
      className: 'DynamoJobRecords',
    });
  const credentials = () => adapterActions('shared/auth/dynamo-credential-store.ts', 'DynamoCredentialStore');
  const queue = () => adapterActions('shared/jobs/queue.ts', 'SqsJobQueue');
  /** The engine's run of a consumer delivery, with a kind's step files. */
  const consumerRun = (...step: string[]) =>
    ['shared/jobs/run.ts', 'shared/jobs/pages.ts', ...step].map((path) => source(path)).join('');
  const authentication = () => actionsOf(credentials(), calledOn(source('shared/auth/authenticator.ts'), 'this.store'));

  test('every operation reads credentials the way the authenticator does, and only that', () => {
    expect(authentication()).toEqual(['dynamodb:GetItem']);
    for (const { operationId: key } of OPERATIONS) {
      expect(granted(key, 'CredentialsTable')).toEqual(authentication());
    }
    for (const key of ['NotFound', 'MigrationConsumer', 'MigrationSweeper'] as const) {
      expect(granted(key, 'CredentialsTable')).toEqual([]);
    }
  });

  /** What reading the organization's policy takes (shared/policy/reader.ts over its store), when the code reads it. */
  const policyReads = (code: string): string[] =>
    code.includes('policyOf(')
      ? actionsOf(
          adapterActions('shared/policy/dynamo-store.ts', 'DynamoPolicyStore'),
          calledOn(source('shared/policy/reader.ts'), 'this.store'),
        )
      : [];
  const union = (...lists: string[][]) => [...new Set(lists.flat())].sort();
  // A request that states a consent text stores it (storeConsentText: the text store's putText).
  const textPuts = (code: string) =>
    code.includes('storeConsentText(') ? actionsOf(declaredActions(CONSENT_TEXT_STORE_GRANTS), ['putText']) : [];

  test('config set and get', () => {
    const setCode = exported('shared/preferences/service.ts', 'setConfig');
    const getCode = exported('shared/preferences/service.ts', 'getConfig');
    const set = calledOn(setCode, 'store');
    const get = calledOn(getCode, 'store');
    expect(set.length * get.length).toBeGreaterThan(0);
    expect(policyReads(setCode)).toEqual(['dynamodb:GetItem']);
    expect(textPuts(setCode)).toEqual(['dynamodb:PutItem']);
    expect(granted('setConfig', 'ConfigTable')).toEqual(
      union(actionsOf(preferences(), set), policyReads(setCode), textPuts(setCode)),
    );
    expect(granted('getConfig', 'ConfigTable')).toEqual(union(actionsOf(preferences(), get), policyReads(getCode)));
  });

  test('config resolve reads only, config reset updates and deletes only', () => {
    const resolveCode = exported('shared/preferences/resolve.ts', 'resolveConfig');
    const resetCode = exported('shared/preferences/reset.ts', 'resetConfig');
    const resolve = calledOn(resolveCode, 'store');
    const reset = calledOn(resetCode, 'store');
    expect(resolve.length * reset.length).toBeGreaterThan(0);
    expect(granted('resolveConfig', 'ConfigTable')).toEqual(
      union(actionsOf(preferences(), resolve), policyReads(resolveCode)),
    );
    expect(granted('resolveConfig', 'ConfigTable')).toEqual(['dynamodb:BatchGetItem']);
    expect(granted('resetConfig', 'ConfigTable')).toEqual(union(actionsOf(preferences(), reset), textPuts(resetCode)));
    // Updates and deletes of entries; a consent's text put once.
    expect(granted('resetConfig', 'ConfigTable')).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    for (const key of ['resolveConfig', 'resetConfig'] as const) {
      expect(granted(key, 'MigrationsTable')).toEqual([]);
      expect(granted(key, 'MigrationQueue')).toEqual([]);
    }
  });

  test('policy set updates the policy item only, policy get reads it', () => {
    const policies = adapterActions('shared/policy/dynamo-store.ts', 'DynamoPolicyStore');
    const service = source('shared/policy/service.ts');
    expect(granted('setPolicy', 'ConfigTable')).toEqual(
      actionsOf(policies, calledOn(exported('shared/policy/service.ts', 'setPolicy'), 'store')),
    );
    expect(granted('getPolicy', 'ConfigTable')).toEqual(
      actionsOf(policies, calledOn(exported('shared/policy/service.ts', 'getPolicy'), 'store')),
    );
    expect(service).toContain('store.put(');
  });

  test('branding set puts or deletes the branding item only, branding get reads it', () => {
    const brandings = adapterActions('shared/branding/dynamo-store.ts', 'DynamoBrandingStore');
    expect(granted('setBranding', 'ConfigTable')).toEqual(
      actionsOf(brandings, calledOn(exported('shared/branding/service.ts', 'setBranding'), 'store')),
    );
    expect(granted('setBranding', 'ConfigTable')).toEqual(['dynamodb:DeleteItem', 'dynamodb:PutItem']);
    expect(granted('getBranding', 'ConfigTable')).toEqual(
      actionsOf(brandings, calledOn(exported('shared/branding/service.ts', 'getBranding'), 'store')),
    );
    expect(granted('getBranding', 'ConfigTable')).toEqual(['dynamodb:GetItem']);
  });

  test('migrate and migrate status', () => {
    const start = source('shared/jobs/start.ts');
    expect(granted('migrateDocument', 'MigrationsTable')).toEqual(
      actionsOf(migrations(), calledOn(start, 'repository')),
    );
    expect(granted('migrateDocument', 'MigrationQueue')).toEqual(actionsOf(queue(), calledOn(start, 'queue')));
    expect(granted('migrateDocument', 'ConfigTable')).toEqual([]);
    const status = source('shared/jobs/view.ts');
    expect(granted('getMigrationStatus', 'MigrationsTable')).toEqual(
      actionsOf(migrations(), calledOn(status, 'repository')),
    );
    expect(granted('getMigrationStatus', 'MigrationQueue')).toEqual([]);
  });

  test('the migration consumer', () => {
    const worker = consumerRun('shared/migration/worker.ts', 'shared/migration/move-page.ts');
    // The store's operations, and its own copy (a transaction of a put and the source's stamp).
    const entries = declaredActions(MIGRATION_ENTRIES_GRANTS);
    expect(actionsOf(entries, ['copyEntryIf'])).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(actionsOf(adapterActions('shared/migration/copies.ts', 'DynamoMigrationEntries'), ['copyEntryIf'])).toEqual(
      actionsOf(entries, ['copyEntryIf']),
    );
    expect(granted('MigrationConsumer', 'ConfigTable')).toEqual(actionsOf(entries, calledOn(worker, 'entries')));
    expect(granted('MigrationConsumer', 'MigrationsTable')).toEqual(
      actionsOf(migrations(), calledOn(worker, 'repository')),
    );
    expect(granted('MigrationConsumer', 'MigrationQueue')).toEqual(actionsOf(queue(), calledOn(worker, 'queue')));
  });

  test('the migration sweeper: what the sweep calls, its one Query on the index of active migrations', () => {
    // One sweep per kind (migrations, erasures), each re-queuing on its kind's queue.
    const sweep = source('shared/jobs/sweep.ts');
    const calls = calledOn(sweep, 'repository');
    expect(calls).toContain('listQuiet');
    const onIndex = actionsOf(migrations(), ['listQuiet']);
    expect(onIndex).toEqual(['dynamodb:Query']);
    expect(granted('MigrationSweeper', 'MigrationsTable')).toEqual(
      actionsOf(
        migrations(),
        calls.filter((method) => method !== 'listQuiet'),
      ),
    );
    expect(granted('MigrationSweeper', 'MigrationsTable97ED8188/index/activeByUpdatedAt')).toEqual(onIndex);
    expect(granted('MigrationSweeper', 'MigrationQueue')).toEqual(actionsOf(queue(), calledOn(sweep, 'queue')));
    expect(granted('MigrationSweeper', 'ErasureQueue')).toEqual(actionsOf(queue(), calledOn(sweep, 'queue')));
    expect(granted('MigrationSweeper', 'ConfigTable')).toEqual([]);
  });

  test('config history reads the history only', () => {
    const history = adapterActions('shared/history/dynamo-store.ts', 'DynamoHistoryStore');
    const read = calledOn(exported('shared/history/read.ts', 'getHistory'), 'store');
    expect(read).toEqual(['list']);
    expect(granted('getConfigHistory', 'HistoryTable8F2A5C31')).toEqual(actionsOf(history, read));
    for (const table of ['ConfigTable', 'MigrationsTable'] as const)
      expect(granted('getConfigHistory', table)).toEqual([]);
  });

  test('erase and erase status', () => {
    const erasures = migrations();
    const erasureQueue = queue();
    const start = source('shared/jobs/start.ts');
    expect(granted('eraseUser', 'MigrationsTable')).toEqual(actionsOf(erasures, calledOn(start, 'repository')));
    expect(granted('eraseUser', 'ErasureQueue')).toEqual(actionsOf(erasureQueue, calledOn(start, 'queue')));
    expect(granted('eraseUser', 'ConfigTable')).toEqual([]);
    const status = source('shared/jobs/view.ts');
    expect(granted('getErasureStatus', 'MigrationsTable')).toEqual(actionsOf(erasures, calledOn(status, 'repository')));
    expect(granted('getErasureStatus', 'ErasureQueue')).toEqual([]);
  });

  test("the erasure consumer: the user's entries (found on the index), the record, the history, its queue", () => {
    const worker = consumerRun('shared/erasure/worker.ts');
    const erased = declaredActions(ERASURE_ENTRY_STORE_GRANTS);
    const onTable = calledOn(worker, 'entries').filter((method) => method !== 'listUserEntries');
    // The user's entries are found on the user index, never by a query of the table.
    expect(actionsOf(erased, ['listUserEntries'])).toEqual([]);
    expect(ERASURE_ENTRY_STORE_GRANTS.listUserEntries.indexes.config).toEqual([USER_INDEX]);
    expect(granted('ErasureConsumer', 'ConfigTable')).toEqual(actionsOf(erased, onTable));
    // As it ends, the erasure names itself the user's last (`deps.last?.mark(`).
    const named = [...worker.matchAll(/\bdeps\.last\?\.(\w+)\(/g)].flatMap(([, method]) =>
      LAST_ERASURE_GRANTS[method as keyof typeof LAST_ERASURE_GRANTS].tables.migrations.map(
        (action) => `dynamodb:${action}`,
      ),
    );
    expect(named).toEqual(['dynamodb:PutItem']);
    expect(granted('ErasureConsumer', 'MigrationsTable')).toEqual(
      union(actionsOf(migrations(), calledOn(worker, 'repository')), named),
    );
    const history = adapterActions('shared/history/dynamo-store.ts', 'DynamoHistoryStore');
    expect(granted('ErasureConsumer', 'HistoryTable')).toEqual(actionsOf(history, calledOn(worker, 'history')));
    expect(granted('ErasureConsumer', 'ErasureQueue')).toEqual(actionsOf(queue(), calledOn(worker, 'queue')));
  });

  test('the change publisher writes the history only (it reads the streams through its event sources)', () => {
    const history = adapterActions('shared/history/dynamo-store.ts', 'DynamoHistoryStore');
    const publisher = source('shared/events/publisher.ts');
    expect(granted('ChangePublisher', 'HistoryTable')).toEqual(actionsOf(history, calledOn(publisher, 'history')));
    expect(granted('ChangePublisher', 'CredentialsTable')).toEqual([]);
  });

  test('the webhook routes: their endpoints item, or the deliveries only', () => {
    const store = adapterActions('shared/webhooks/dynamo-store.ts', 'DynamoWebhookStore');
    const log = adapterActions('shared/webhooks/dynamo-store.ts', 'DynamoDeliveryLog');
    const service = 'shared/webhooks/service.ts';
    for (const [key, name] of [
      ['setWebhooks', 'setWebhooks'],
      ['getWebhooks', 'getWebhooks'],
      ['rotateWebhookSecret', 'rotateWebhookSecret'],
    ] as const) {
      expect(granted(key, 'ConfigTable')).toEqual(actionsOf(store, calledOn(exported(service, name), 'store')));
      expect(granted(key, 'HistoryTable')).toEqual([]);
    }
    expect(granted('getWebhooks', 'ConfigTable')).toEqual(['dynamodb:GetItem']);
    const deliveries = calledOn(exported(service, 'getWebhookDeliveries'), 'deliveries');
    expect(granted('getWebhookDeliveries', 'HistoryTable')).toEqual(actionsOf(log, deliveries));
    expect(granted('getWebhookDeliveries', 'ConfigTable')).toEqual([]);
  });

  test('the webhook dispatcher: the endpoints item, its attempts, its own queue', () => {
    const dispatcher = source('shared/webhooks/dispatcher.ts');
    const store = adapterActions('shared/webhooks/dynamo-store.ts', 'DynamoWebhookStore');
    const log = adapterActions('shared/webhooks/dynamo-store.ts', 'DynamoDeliveryLog');
    const retries = adapterActions('shared/webhooks/queue.ts', 'SqsRetryQueue');
    expect(calledOn(dispatcher, 'deps.endpoints').sort()).toEqual([
      'clearFailing',
      'disable',
      'get',
      'markFailing',
      'reseal',
    ]);
    expect(granted('WebhookDispatcher', 'ConfigTable')).toEqual(
      actionsOf(store, calledOn(dispatcher, 'deps.endpoints')),
    );
    expect(granted('WebhookDispatcher', 'HistoryTable')).toEqual(
      actionsOf(log, calledOn(dispatcher, 'deps.deliveries')),
    );
    expect(granted('WebhookDispatcher', 'WebhookQueue')).toEqual(
      actionsOf(retries, calledOn(dispatcher, 'deps.retries')),
    );
    for (const other of ['MigrationsTable', 'CredentialsTable', 'MigrationQueue', 'ErasureQueue'])
      expect(granted('WebhookDispatcher', other)).toEqual([]);
  });
});
