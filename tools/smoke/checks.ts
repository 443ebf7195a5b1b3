import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod/mini';
import { createClient, ServiceError, TransportError, WaitTimeoutError } from '#client/index.js';
import { OPERATIONS, type Operation, type OperationId } from '#tools/openapi/operations.js';

/**
 * `npm run smoke`: every route of a deployed stage (or of `npm start`) called through the typed
 * client, each answer checked. The flow (set, get, resolve, reset, migrate, status, wait, clean
 * up) writes only under one organization (`smoke` unless told otherwise) and ids unique to the
 * run, so it never touches real data. An operation of the API that the flow does not exercise
 * runs its documented examples (tools/openapi/operations.ts) in that organization, their answers
 * checked against the operation's result schema: a new route is covered without a new step.
 */

export interface SmokeOptions {
  baseUrl: string;
  apiKey: string;
  token: string;
  /** Where the checks write; the credential must be granted it. */
  organizationId?: string;
  /** Prefix of the run's user and document ids; unique by default. */
  runId?: string;
  /** How long the migration may take to complete. */
  migrationTimeoutMs?: number;
  fetch?: typeof fetch;
  /** Told each check as it ends. */
  onCheck?: (check: CheckResult) => void;
}

export interface CheckResult {
  name: string;
  operationIds: OperationId[];
  ok: boolean;
  /** What deviated, when not ok. */
  detail?: string;
  ms: number;
}

export interface SmokeReport {
  organizationId: string;
  runId: string;
  checks: CheckResult[];
  /** Operations some check called. */
  covered: OperationId[];
  ok: boolean;
}

export const DEFAULT_ORGANIZATION = 'smoke';
export const DEFAULT_MIGRATION_TIMEOUT_MS = 120_000;

/** A deviation from the expected answer, said in one line. */
class Deviation extends Error {}

const show = (value: unknown) => JSON.stringify(value);

const expectEqual = (what: string, actual: unknown, expected: unknown) => {
  if (!isDeepStrictEqual(actual, expected))
    throw new Deviation(`${what} is ${show(actual)}, expected ${show(expected)}`);
};

const describeError = (error: unknown): string => {
  if (error instanceof Deviation) return error.message;
  if (error instanceof ServiceError) return `answered ${error.status} (HTTP ${error.httpStatus}): ${error.message}`;
  if (error instanceof TransportError) return `no usable answer (${error.kind}): ${error.message}`;
  if (error instanceof WaitTimeoutError) return error.message;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
};

/** Every `organizationId` in an example request, replaced. */
const inOrganization = (value: unknown, organizationId: string): unknown => {
  if (Array.isArray(value)) return value.map((item) => inOrganization(item, organizationId));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === 'organizationId' ? organizationId : inOrganization(item, organizationId),
    ]),
  );
};

const uniqueRunId = () =>
  `smoke-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;

export const runSmoke = async (options: SmokeOptions): Promise<SmokeReport> => {
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION;
  const runId = options.runId ?? uniqueRunId();
  const clientOptions = {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    token: options.token,
    timeoutMs: 30_000,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const client = createClient(clientOptions);
  const checks: CheckResult[] = [];
  const covered = new Set<OperationId>();

  /** Runs one check; false when it deviated (the flow goes on: later checks say what they can). */
  const check = async (name: string, operationIds: OperationId[], body: () => Promise<void>): Promise<boolean> => {
    const started = performance.now();
    for (const id of operationIds) covered.add(id);
    let result: CheckResult;
    try {
      await body();
      result = { name, operationIds, ok: true, ms: performance.now() - started };
    } catch (error) {
      result = { name, operationIds, ok: false, detail: describeError(error), ms: performance.now() - started };
    }
    checks.push(result);
    options.onCheck?.(result);
    return result.ok;
  };

  const org = organizationId;
  const [u1, u2, u3] = ['u1', 'u2', 'u3'].map((user) => `${runId}-${user}`) as [string, string, string];
  const [docA, docB, docC] = [`${runId}-doc-a`, `${runId}-doc-b`, `${runId}-doc-c`];

  const expectWritten = (result: Record<string, { success: boolean; documentId: string | null }>, users: string[]) => {
    expectEqual('the users answered', Object.keys(result).sort(), [...users].sort());
    for (const user of users) expectEqual(`${user}'s success`, result[user]?.success, true);
  };

  await check('config/set: two users on a document', ['setConfig'], async () => {
    const result = await client.setConfig({
      organizationId: org,
      userIds: [u1, u2],
      documentIds: [docA],
      config: { email: 'MINE', slack: 'NONE' },
    });
    expectWritten(result, [u1, u2]);
    expectEqual(`${u1}'s documentId`, result[u1]?.documentId, docA);
  });

  await check('config/set: an organization-level default', ['setConfig'], async () => {
    const result = await client.setConfig({ organizationId: org, userIds: [u1], config: { inbox: 'NONE' } });
    expectWritten(result, [u1]);
    expectEqual(`${u1}'s scope`, result[u1]?.scope, 'organization');
  });

  const layered = { inbox: 'organization', email: 'document', slack: 'document' };
  await check('config/get: the stored entry and the layer of each channel', ['getConfig'], async () => {
    const [item, ...more] = await client.getConfig({ organizationId: org, userId: u1, documentIds: [docA] });
    expectEqual('the number of items', more.length + (item ? 1 : 0), 1);
    expectEqual('config', item?.config, { email: 'MINE', slack: 'NONE' });
    expectEqual('source', item?.source, layered);
    expectEqual('effective', item?.effective, { inbox: 'NONE', email: 'MINE', slack: 'NONE' });
  });

  await check('config/resolve: who an activity reaches', ['resolveConfig'], async () => {
    const result = await client.resolveConfig({
      organizationId: org,
      documentId: docA,
      userIds: [u1, u2, u3],
      activity: { involvedUserIds: [u2] },
    });
    expectEqual('users', Object.keys(result.users), [u1, u2, u3]);
    expectEqual(`${u1}'s source`, result.users[u1]?.source, layered);
    expectEqual(`${u2}'s source`, result.users[u2]?.source, { inbox: 'default', email: 'document', slack: 'document' });
    expectEqual(`${u3}'s source`, result.users[u3]?.source, { inbox: 'default', email: 'default', slack: 'default' });
    // Deployment defaults vary by stage: what each user gets follows from its effective settings.
    const recipients: Record<string, string[]> = { inbox: [], email: [], slack: [] };
    for (const [user, entry] of Object.entries(result.users)) {
      for (const [channel, setting] of Object.entries(entry.effective)) {
        const delivers = setting === 'ALL' || (setting === 'MINE' && user === u2);
        expectEqual(`${user}'s deliver.${channel}`, entry.deliver?.[channel as 'inbox'], delivers);
        if (delivers) recipients[channel]?.push(user);
      }
    }
    expectEqual('recipients', result.recipients, recipients);
  });

  await check(
    'config/set and get: a category layer over the organization-level entry',
    ['setConfig', 'getConfig'],
    async () => {
      expectWritten(
        await client.setConfig({
          organizationId: org,
          userIds: [u1],
          category: 'smoke-category',
          config: { email: 'NONE' },
        }),
        [u1],
      );
      const [item] = await client.getConfig({ organizationId: org, userId: u1, category: 'smoke-category' });
      expectEqual('categories', item?.categories, { 'smoke-category': { email: 'NONE' } });
      expectEqual('source.email', item?.source.email, 'organization:category');
      expectEqual('config (all categories)', item?.config, { inbox: 'NONE' });
    },
  );

  await check(
    'schedule/set, get, and resolve at a quiet time',
    ['setSchedule', 'getSchedule', 'resolveConfig'],
    async () => {
      const schedule = {
        timeZone: 'Europe/Berlin',
        quietHours: [{ days: ['mon' as const], start: '22:00', end: '07:00' }],
      };
      expectWritten(await client.setSchedule({ organizationId: org, userIds: [u2], schedule }), [u2]);
      const stored = await client.getSchedule({ organizationId: org, userId: u2 });
      expectEqual('the schedule', stored.schedule, {
        ...schedule,
        quietHours: [{ ...schedule.quietHours[0], channels: ['email', 'slack'] }],
      });
      // Monday 23:30 in Berlin: u2's email (MINE on docA, and u2 involved) waits for 07:00.
      const result = await client.resolveConfig({
        organizationId: org,
        documentId: docA,
        userIds: [u2],
        activity: { involvedUserIds: [u2] },
        at: '2026-11-23T22:30:00Z',
      });
      expectEqual(`${u2}'s email decision`, result.users[u2]?.decision?.email, {
        action: 'defer',
        deliverAt: '2026-11-24T06:00:00.000Z',
        reason: 'quiet_hours',
      });
      expectEqual('sendNow.email', result.sendNow?.email, []);
    },
  );

  await check('config/reset: one channel of one entry, then read back', ['resetConfig', 'getConfig'], async () => {
    const result = await client.resetConfig({
      organizationId: org,
      userIds: [u2],
      documentIds: [docA],
      channels: ['email'],
    });
    expectWritten(result, [u2]);
    const [item] = await client.getConfig({ organizationId: org, userId: u2, documentIds: [docA] });
    expectEqual('config after the reset', item?.config, { slack: 'NONE' });
    expectEqual('source.email after the reset', item?.source.email, 'default');
  });

  let migrationId: string | undefined;
  await check('migrate: starts and answers its id', ['migrateDocument'], async () => {
    ({ migrationId } = await client.migrateDocument({ organizationId: org, documentId: docA, newDocumentId: docB }));
    if (typeof migrationId !== 'string' || migrationId === '')
      throw new Deviation(`migrationId is ${show(migrationId)}`);
  });

  const requireMigration = (): string => {
    if (migrationId === undefined) throw new Deviation('no migration to look at: the migrate check failed');
    return migrationId;
  };
  await check('migrate/status: the migration as started', ['getMigrationStatus'], async () => {
    const status = await client.getMigrationStatus({ organizationId: org, migrationId: requireMigration() });
    expectEqual(
      'the migration',
      [status.migrationId, status.organizationId, status.documentId, status.newDocumentId],
      [migrationId, org, docA, docB],
    );
  });

  await check('migrate/status: completes, every entry moved', ['getMigrationStatus'], async () => {
    const status = await client.waitForMigration(
      { organizationId: org, migrationId: requireMigration() },
      { timeoutMs: options.migrationTimeoutMs ?? DEFAULT_MIGRATION_TIMEOUT_MS },
    );
    expectEqual('status', status.status === 'failed' ? `failed: ${status.error}` : status.status, 'completed');
    expectEqual('moved and skipped', [status.moved, status.skipped], [2, 0]);
    const [moved] = await client.getConfig({ organizationId: org, userId: u1, documentIds: [docB] });
    expectEqual(`${u1}'s entry on the new document`, moved?.config, { email: 'MINE', slack: 'NONE' });
    const [left] = await client.getConfig({ organizationId: org, userId: u1, documentIds: [docA] });
    expectEqual(`${u1}'s entry on the old document`, left?.config, {});
  });

  await check('authentication: a wrong token is refused', [], async () => {
    const stranger = createClient({ ...clientOptions, token: 'st_smoke-wrong-token', retry: false });
    const refused = await stranger.getConfig({ organizationId: org, userId: u1 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!(refused instanceof ServiceError)) throw new Deviation(`the call ${describeError(refused ?? 'succeeded')}`);
    expectEqual('the refusal', [refused.status, refused.httpStatus], ['UNAUTHENTICATED', 401]);
  });

  await check('an unknown route answers NOT_FOUND in the envelope', [], async () => {
    const response = await (options.fetch ?? fetch)(`${options.baseUrl.replace(/\/+$/, '')}/v2/smoke-unknown-route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"data":{}}',
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json().catch(() => undefined)) as { error?: { status?: string } } | undefined;
    expectEqual('the answer', [response.status, body?.error?.status], [404, 'NOT_FOUND']);
  });

  await check(
    'links: the unsubscribe page, one-click unsubscribe, the change read back, revoked links answer 404',
    ['createLinks', 'revokeLinks'],
    async () => {
      const links = await client.createLinks({ organizationId: org, userIds: [u1], documentId: docC });
      const link = links[u1];
      if (!link) throw new Deviation(`no links for ${u1}`);
      expectEqual('the headers', link.headers['List-Unsubscribe'], `<${link.unsubscribeUrl}>`);
      const page = (init: RequestInit = {}) =>
        (options.fetch ?? fetch)(link.unsubscribeUrl, {
          redirect: 'manual',
          signal: AbortSignal.timeout(30_000),
          ...init,
        });
      const offer = await page();
      expectEqual('the page', [offer.status, offer.headers.get('content-type')], [200, 'text/html; charset=utf-8']);
      expectEqual('its nosniff header', offer.headers.get('x-content-type-options'), 'nosniff');
      const done = await page({
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expectEqual('the one-click answer', done.status, 200);
      const item = await client.getConfigItem({ organizationId: org, userId: u1, documentId: docC });
      expectEqual(`${u1}'s email on ${docC}`, item.config.email, 'NONE');
      await client.revokeLinks({ organizationId: org, userIds: [u1] });
      expectEqual('the revoked link', (await page()).status, 404);
    },
  );

  await check('users/erase: a user erased, the status completes', ['eraseUser', 'getErasureStatus'], async () => {
    const { erasureId } = await client.eraseUser({ organizationId: org, userId: u3 });
    const deadline = Date.now() + (options.migrationTimeoutMs ?? DEFAULT_MIGRATION_TIMEOUT_MS);
    let status = await client.getErasureStatus({ organizationId: org, erasureId });
    while ((status.status === 'pending' || status.status === 'in_progress') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = await client.getErasureStatus({ organizationId: org, erasureId });
    }
    expectEqual('the erasure', [status.erasureId, status.userId, status.status], [erasureId, u3, 'completed']);
  });

  await check(
    'exports: a file of the organization, fetched by its presigned URL',
    ['createExport', 'getExportStatus'],
    async () => {
      const { exportId } = await client.createExport({ organizationId: org, format: 'jsonl', documentIds: [docC] });
      const deadline = Date.now() + (options.migrationTimeoutMs ?? DEFAULT_MIGRATION_TIMEOUT_MS);
      let status = await client.getExportStatus({ organizationId: org, exportId });
      while ((status.status === 'pending' || status.status === 'in_progress') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = await client.getExportStatus({ organizationId: org, exportId });
      }
      expectEqual('the export', [status.exportId, status.status], [exportId, 'completed']);
      const file = await (options.fetch ?? fetch)(status.downloadUrl ?? '', { signal: AbortSignal.timeout(30_000) });
      expectEqual('the download', file.status, 200);
      const rows = (await file.text()).split('\n').filter(Boolean).length;
      expectEqual('its rows', rows, status.rows);
    },
  );

  await check(
    'imports: a dry run of an uploaded file counts its rows and writes nothing',
    ['createImport', 'getImportStatus'],
    async () => {
      const { importId, uploadUrl } = await client.createImport({ organizationId: org, format: 'csv', dryRun: true });
      const file = `userId,documentId,email\r\n${u1},${docC},ALL\r\n${u1},${docC},LOUD\r\n`;
      const upload = await (options.fetch ?? fetch)(uploadUrl, {
        method: 'PUT',
        body: file,
        signal: AbortSignal.timeout(30_000),
      });
      expectEqual('the upload', upload.status, 200);
      const deadline = Date.now() + (options.migrationTimeoutMs ?? DEFAULT_MIGRATION_TIMEOUT_MS);
      let status = await client.getImportStatus({ organizationId: org, importId });
      while (status.status !== 'completed' && status.status !== 'failed' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = await client.getImportStatus({ organizationId: org, importId });
      }
      expectEqual('the import', [status.status, status.rowsRead, status.rowsRejected], ['completed', 2, 1]);
    },
  );

  await check('policy/set: the stored policy set again, one version later', ['getPolicy', 'setPolicy'], async () => {
    // Setting what is stored changes nothing users get, and a rerun never races a version.
    const stored = await client.getPolicy({ organizationId: org });
    const set = await client.setPolicy({ organizationId: org, policy: stored.policy, expectedVersion: stored.version });
    expectEqual('the new version', set.version, stored.version + 1);
    const read = await client.getPolicy({ organizationId: org });
    expectEqual('the policy read back', [read.policy, read.version], [stored.policy, set.version]);
  });

  await check(
    'webhooks: an endpoint set disabled, read back, its secret rotated, its deliveries read, then removed',
    ['setWebhooks', 'getWebhooks', 'rotateWebhookSecret', 'getWebhookDeliveries'],
    async () => {
      // Disabled, at a public address without DNS: set anywhere, and never called.
      const url = 'https://1.1.1.1/notification-preferences-smoke';
      const set = await client.setWebhooks({ organizationId: org, endpoints: [{ url, disabled: true }] });
      const [endpoint] = set.endpoints;
      expectEqual(
        'the new endpoint',
        [endpoint?.url, endpoint?.disabled, endpoint?.secret?.startsWith('whsec_')],
        [url, true, true],
      );
      const read = await client.getWebhooks({ organizationId: org });
      expectEqual(
        'the endpoint read back, without its secret',
        read.endpoints.map(({ id, url: at }) => [id, at]),
        [[endpoint?.id, url]],
      );
      const rotated = await client.rotateWebhookSecret({ organizationId: org, endpointId: endpoint?.id as string });
      expectEqual('a new secret', rotated.secret !== endpoint?.secret, true);
      const deliveries = await client.getWebhookDeliveries({ organizationId: org, endpointId: endpoint?.id as string });
      expectEqual('no delivery to a disabled endpoint', deliveries.deliveries, []);
      expectEqual('none left', (await client.setWebhooks({ organizationId: org, endpoints: [] })).endpoints, []);
    },
  );

  // Operations the flow did not call: their documented examples, answers checked by schema.
  for (const operation of OPERATIONS as readonly Operation[]) {
    const id = operation.operationId as OperationId;
    if (covered.has(id)) continue;
    for (const [name, example] of Object.entries(operation.examples)) {
      await check(`${operation.path}: documented example ${name}`, [id], async () => {
        const method = (client as unknown as Record<string, (data: unknown) => Promise<unknown>>)[id];
        if (typeof method !== 'function') {
          throw new Deviation(`the client has no ${id} method: run npm run generate`);
        }
        const parsed = z.safeParse(operation.result, await method(inOrganization(example.value, org)));
        if (!parsed.success) {
          throw new Deviation(`the answer does not match the result schema: ${z.prettifyError(parsed.error)}`);
        }
      });
    }
  }

  await check('clean-up: the run’s entries reset', ['resetConfig'], async () => {
    expectWritten(await client.resetConfig({ organizationId: org, userIds: [u1], category: 'smoke-category' }), [u1]);
    expectWritten(await client.setSchedule({ organizationId: org, userIds: [u2], schedule: null }), [u2]);
    expectWritten(await client.resetConfig({ organizationId: org, userIds: [u1] }), [u1]);
    expectWritten(
      await client.resetConfig({ organizationId: org, userIds: [u1, u2], documentIds: [docA, docB, docC] }),
      [u1, u2],
    );
  });

  const missing = OPERATIONS.map((operation) => operation.operationId).filter((id) => !covered.has(id));
  if (missing.length > 0) {
    await check('every operation is covered', [], async () => {
      throw new Deviation(`no check called ${missing.join(', ')}`);
    });
  }
  return {
    organizationId,
    runId,
    checks,
    covered: [...covered],
    ok: checks.every((c) => c.ok),
  };
};
