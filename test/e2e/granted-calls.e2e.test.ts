import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { AwsCall } from '#local/call-recorder.js';
import { LOCAL_LINK_KEYS_SECRET } from '#local/secrets/local-secrets-manager.js';
import { TABLES } from '#service/tables.js';
import { runSmoke } from '#tools/smoke/checks.js';
import { allows, type FunctionKey, statementsOf } from '../infra/iam-policies.js';
import { type Resources, SYNTH_TIMEOUT_MS, type Synthesized, synthService } from '../infra/synth.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// DynamoDB Local and the twin's queues check no IAM, so a call that a function's grants miss
// shows only on AWS, as AccessDenied (an erasure once made the change publisher query an index
// it had no right to: every erased entry's stream record failed and blocked its shard). Here every
// AWS call each function makes through the twin, for every route, a migration, an erasure and a
// sweep, is checked against that function's policy in the synthesized template.

let service: LocalService;
let s: Synthesized;
let resources: Resources;
const calls = new Map<string, AwsCall>();

beforeAll(async () => {
  service = await startLocalService({
    recordAwsCalls: (call) => calls.set(JSON.stringify(call), call),
    queue: { retryDelayMs: 200 },
  });
  s = synthService({}, { bundle: false, guard: false });
  resources = s.template.toJSON().Resources as Resources;
}, SYNTH_TIMEOUT_MS);
afterAll(async () => {
  await service?.close();
  s?.cleanup();
});

const until = async (what: string, done: () => Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** The template's logical id of what a recorded call names. */
const targetOf = (call: AwsCall): string => {
  if (call.queue) return s.logicalId(s.stack.queues[call.queue as keyof typeof s.stack.queues].queue);
  if (call.bus) return s.logicalId(s.stack.eventBus);
  if (call.object !== undefined) return `${s.logicalId(s.stack.files.bucket)}/${call.object}`;
  if (call.secret !== undefined) {
    // The twin's Secrets Manager stand-in holds one secret: the stack's link keys.
    if (call.secret !== LOCAL_LINK_KEYS_SECRET) throw new Error(`No secret ${call.secret}`);
    return s.logicalId(s.stack.secrets.linkKeys.secret);
  }
  const name = Object.entries(TABLES).find(([, table]) => table.localName === call.table)?.[0];
  if (!name) throw new Error(`No table ${call.table}`);
  const table = s.logicalId(s.stack.tables[name as keyof typeof TABLES].table);
  return call.index ? `${table}/index/${call.index}` : table;
};

test("every AWS call each function makes through the twin is allowed by that function's policy", async () => {
  // Every route, through the typed client, as a deployed stage is smoke-tested.
  const smoke = await runSmoke({ baseUrl: service.baseUrl, apiKey: service.apiKey, token: service.token });
  expect(smoke.checks.filter((check) => !check.ok)).toEqual([]);

  // The preference page, read and saved (a setting, a reset and the schedule): the smoke checks
  // open only the unsubscribe page.
  const links = await service.call('/v2/notifications/links/create', {
    organizationId: 'grants',
    userIds: ['pia'],
    documentId: 'doc-p',
  });
  const pageUrl = (links.body.result?.data as Record<string, { preferencesUrl: string }> | undefined)?.pia
    ?.preferencesUrl as string;
  expect((await fetch(pageUrl)).status).toBe(200);
  const saved = await fetch(pageUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'org:email=NONE&doc:slack=ALL&schedule:timeZone=Europe/Berlin&q0d=mon&q0s=22:00&q0e=07:00&q0c=email',
  });
  expect(saved.status).toBe(303);
  const reset = await fetch(pageUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'org:email=default',
  });
  expect(reset.status).toBe(303);

  // An erasure of a user with history: the change publisher then removes each entry's history.
  const org = 'grants';
  const user = 'erin';
  for (const documentIds of [['doc-1'], undefined]) {
    const set = await service.call('/v2/notifications/config/set', {
      organizationId: org,
      userIds: [user],
      ...(documentIds ? { documentIds } : {}),
      config: { email: 'NONE' },
    });
    expect(set.status).toBe(200);
  }
  const history = async () =>
    (
      (await service.call('/v2/notifications/config/history', { organizationId: org, userId: user })).body.result!
        .data as { changes: unknown[] }
    ).changes.length;
  await until('the history of the sets', async () => (await history()) === 2);
  const erase = await service.call('/v2/organizations/users/erase', { organizationId: org, userId: user });
  const { erasureId } = erase.body.result!.data as { erasureId: string };
  await until('the erasure', async () => {
    const status = await service.call('/v2/organizations/users/erase/status', { organizationId: org, erasureId });
    return (status.body.result!.data as { status: string }).status === 'completed';
  });
  await until('the publisher to handle the erased entries', async () =>
    [...calls.values()].some((call) => call.function === 'ChangePublisher' && call.action === 'dynamodb:Query'),
  );
  // Webhooks: a receiver on loopback that fails the first attempt (the retry queued, the run of
  // failures recorded), takes the retry (the run cleared), then answers 410 (the endpoint disabled).
  const statuses = [500, 204, 410];
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(statuses.shift() ?? 204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const hooks = await service.call('/v2/organizations/webhooks/set', {
      organizationId: org,
      endpoints: [{ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in` }],
    });
    expect(hooks.status).toBe(200);
    for (const email of ['ALL', 'MINE']) {
      await service.call('/v2/notifications/config/set', { organizationId: org, userIds: ['hana'], config: { email } });
      await until('the webhook attempts', async () => statuses.length === (email === 'ALL' ? 1 : 0), 60_000);
    }
    await until('the endpoint disabled', async () =>
      [...calls.values()].some(
        (call) =>
          call.function === 'WebhookDispatcher' && call.action === 'dynamodb:UpdateItem' && statuses.length === 0,
      ),
    );
    await service.webhookQueue.whenIdle();
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }

  // The sweeper of stuck migrations, as its schedule runs it.
  await service.sweeper.runNow();
  await service.queue.whenIdle();
  await service.erasureQueue.whenIdle();
  await service.exportQueue.whenIdle();

  const recorded = [...calls.values()];
  const functions = new Set(recorded.map((call) => call.function));
  expect([...functions].sort()).toEqual(
    expect.arrayContaining([
      'ChangePublisher',
      'ErasureConsumer',
      'ExportConsumer',
      'MigrationConsumer',
      'MigrationSweeper',
      'setConfig',
      'eraseUser',
      'preferencePage',
      'unsubscribe',
      'WebhookDispatcher',
      'setWebhooks',
      'rotateWebhookSecret',
    ]),
  );

  const denied = recorded
    .filter((call) => !allows(statementsOf(s, resources, call.function as FunctionKey), call.action, targetOf(call)))
    .map(
      (call) =>
        `${call.function}: ${call.action} on ${call.index ? `${call.table} index ${call.index}` : (call.table ?? call.queue ?? call.bus ?? call.secret ?? call.object)}`,
    );
  expect(denied).toEqual([]);

  // What is granted and was never used by this workload: a report, not a failure (some grants
  // serve paths no workload reaches here, such as a failure's clean-up). The event source
  // mappings' own rights (receiving from a queue, reading a stream, the on-failure queue) are
  // Lambda's, not the code's.
  const eventSource = (key: FunctionKey, action: string, target: string) =>
    /^sqs:(ReceiveMessage|DeleteMessage|ChangeMessageVisibility|GetQueueAttributes|GetQueueUrl)$/.test(action) ||
    /^dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams)$/.test(action) ||
    (key === 'ChangePublisher' && action === 'sqs:SendMessage' && target.startsWith('ChangePublisherFailureQueue'));
  const unused: string[] = [];
  for (const key of Object.keys(s.stack.functions) as FunctionKey[]) {
    const used = recorded.filter((call) => call.function === key);
    for (const statement of statementsOf(s, resources, key)) {
      for (const action of statement.actions.filter((a) => /^(dynamodb|sqs|events|secretsmanager|s3):/.test(a))) {
        for (const target of statement.targets) {
          if (eventSource(key, action, target)) continue;
          if (!used.some((call) => call.action === action && targetOf(call) === target))
            unused.push(`${key}: ${action} on ${target}`);
        }
      }
    }
  }
  console.log(`Granted and not used by this workload (${unused.length}):\n  ${unused.join('\n  ')}`);
}, 180_000);
