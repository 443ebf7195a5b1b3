import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { runInspectCommand } from '#tools/inspect/command.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// Locally, `npm start` delivers the events to loopback endpoints, through the same bus rule,
// queue and dispatcher as deployed: a config set reaches a receiver on this machine, signed,
// and `npm run inspect` shows the attempt.

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

describe('webhooks on the local twin', () => {
  let service: LocalService;
  let receiver: Server;
  let port = 0;
  let dataDir = '';
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
    dataDir = await mkdtemp(join(tmpdir(), 'webhooks-'));
    service = await startLocalService({ inMemory: false, dataDir });
  });
  afterAll(async () => {
    await service?.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('a config change reaches the loopback endpoint, signed, and shows in webhooks/deliveries', async () => {
    const set = await service.call('/v2/organizations/webhooks/set', {
      organizationId: 'acme',
      endpoints: [{ url: `http://127.0.0.1:${port}/hooks`, eventTypes: ['preference.changed'] }],
    });
    expect(set.status).toBe(200);
    const [endpoint] =
      (set.body.result?.data as { endpoints: { id: string; secret: string }[] } | undefined)?.endpoints ?? [];
    expect(
      (
        await service.call('/v2/notifications/config/set', {
          organizationId: 'acme',
          userIds: ['alice'],
          config: { email: 'NONE' },
        })
      ).status,
    ).toBe(200);

    const deadline = Date.now() + 30_000;
    while (received.length === 0 && Date.now() < deadline) await sleep(50);
    const [delivery] = received as [Received];
    const event = new Webhook(endpoint?.secret as string).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    }) as { type: string; data: Record<string, unknown> };
    expect(event).toMatchObject({
      type: 'preference.changed',
      data: { organizationId: 'acme', userId: 'alice', after: { email: 'NONE' } },
    });

    const deliveries = await service.call('/v2/organizations/webhooks/deliveries', {
      organizationId: 'acme',
      endpointId: endpoint?.id,
    });
    expect((deliveries.body.result?.data as { deliveries: unknown[] } | undefined)?.deliveries).toEqual([
      expect.objectContaining({ eventId: delivery.headers['webhook-id'], attempt: 1, statusCode: 204 }),
    ]);

    let shown = '';
    const code = await runInspectCommand(['deliveries', '--org', 'acme', '--data-dir', dataDir], {
      stdout: (text) => {
        shown += text;
      },
      stderr: () => {},
      env: {},
    });
    expect(code).toBe(0);
    expect(shown).toContain(
      `"acme" ${endpoint?.id}  preference.changed "${delivery.headers['webhook-id']}"  attempt 1: 204 in`,
    );
  });
});
