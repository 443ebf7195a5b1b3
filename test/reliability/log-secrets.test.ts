import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { hashToken } from '#shared/auth/credential.js';
import type { LocalService } from '../support/local-service.js';
import { addCredential, callAs, PATHS, type TestCredential, waitForMigration } from './support.js';

// Tokens (and webhook secrets) never appear in logs (docs/api.md, Authentication), at the most verbose settings an operator
// can choose: DEBUG level and Powertools' POWERTOOLS_LOGGER_LOG_EVENT, which logs each
// incoming event. Everything the process writes to stdout and stderr is captured, and so is
// the local server's own request log.
const CONSENT_TEXT = 'Yes: email me when someone mentions me (wording v7, never logged).';
let service: LocalService;
let credential: TestCredential;
const captured: string[] = [];
const streams = [process.stdout, process.stderr] as const;
const originals = streams.map((stream) => stream.write);

beforeAll(async () => {
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as typeof stream.write;
  }
  // The Powertools logger reads its settings when its module loads, which may be while the
  // local server's modules load (before the server applies its `env`): set them first.
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
  process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
  const { startLocalService } = await import('../support/local-service.js');
  service = await startLocalService({
    env: { POWERTOOLS_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOGGER_LOG_EVENT: 'true' },
    log: (line) => captured.push(line),
  });
  credential = await addCredential(service, 'ak_logged', ['org-1']);
});
afterAll(async () => {
  await service?.close();
  streams.forEach((stream, i) => {
    stream.write = originals[i] as typeof stream.write;
  });
});

test('no token (valid or wrong), no token hash and no webhook secret appears in any log line, on success, refusal, migration, delivery or crash', async () => {
  const wrong = { apiKey: credential.apiKey, token: `${credential.token}-wrong` };
  const unknown = { apiKey: 'ak_unknown', token: 'st_unknown-key-token' };
  const data = {
    set: { organizationId: 'org-1', userIds: ['u1'], documentIds: ['d1'], config: { inbox: 'ALL' } },
    get: { organizationId: 'org-1', userId: 'u1', documentIds: ['d1'] },
    migrate: { organizationId: 'org-1', documentId: 'd1', newDocumentId: 'd2' },
  };
  for (const c of [credential, wrong, unknown]) {
    await callAs(service, c, PATHS.set, data.set);
    await callAs(service, c, PATHS.get, data.get);
    await callAs(service, c, '/no/such/route', data.get);
  }
  // Webhooks: a new endpoint's secret, a rotated one, and deliveries signed with both.
  let deliveries = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      deliveries += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const secrets: string[] = [];
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const hooks = await callAs(service, credential, '/v2/organizations/webhooks/set', {
      organizationId: 'org-1',
      endpoints: [{ url }],
    });
    const [endpoint] = (hooks.body.result!.data as { endpoints: { id: string; secret: string }[] }).endpoints;
    secrets.push(endpoint?.secret as string);
    const rotated = await callAs(service, credential, '/v2/organizations/webhooks/rotate-secret', {
      organizationId: 'org-1',
      endpointId: endpoint?.id,
    });
    secrets.push((rotated.body.result!.data as { secret: string }).secret);
    await callAs(service, credential, PATHS.set, { ...data.set, config: { inbox: 'NONE' } });
    const deadline = Date.now() + 30_000;
    while (deliveries === 0 && Date.now() < deadline) await sleep(50);
    expect(deliveries).toBeGreaterThan(0);
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
  const started = await callAs(service, credential, PATHS.migrate, data.migrate);
  const migrationId = (started.body.result!.data as { migrationId: string }).migrationId;
  expect(await waitForMigration(service, credential, 'org-1', migrationId)).toMatchObject({ status: 'completed' });
  // A consent's text is the person's words in the organization's wording: never in a log either,
  // stored or refused (a capture time in the future).
  await callAs(service, credential, PATHS.set, { ...data.set, consent: { source: 'settings', text: CONSENT_TEXT } });
  await callAs(service, credential, PATHS.set, {
    ...data.set,
    consent: { source: 'settings', text: CONSENT_TEXT, capturedAt: '2999-01-01T00:00:00Z' },
  });
  // An unexpected failure: the config table is gone, so the route answers INTERNAL and logs the error.
  await service.dynamo.send(new DeleteTableCommand({ TableName: service.tables.config }));
  expect((await callAs(service, credential, PATHS.get, data.get)).status).toBe(500);

  const text = captured.join('\n');
  // The capture works: the logs name the api key (not a secret) and the failure.
  expect(text).toContain(credential.apiKey);
  expect(text).toContain('Unexpected error');
  for (const secret of [
    credential.token,
    wrong.token,
    unknown.token,
    service.token,
    hashToken(credential.token),
    CONSENT_TEXT,
  ]) {
    expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
  }
  // Nor an endpoint's secret, whole or its key bytes alone.
  expect(secrets).toHaveLength(2);
  for (const secret of secrets.flatMap((one) => [one, one.slice('whsec_'.length)])) {
    expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
  }
});
