import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pMap from 'p-map';
import { ensureTables, startEmbeddedDynamo } from '#local/dynamo.js';
import { TABLES } from '#service/tables.js';
import { REQUEST_WRITE_CONCURRENCY } from '#shared/preferences/batching.js';
import type { EntryKey } from '#shared/preferences/model.js';
import { serve } from './protocol.js';

/**
 * The throughput baseline: node:http in front of the same local DynamoDB as `npm start`
 * (local/dynamo.ts) and the same SDK clients (shared/platform/aws-clients.ts, endpoint from the
 * environment, as the local server sets it), making the same storage calls through the same
 * adapter as the service: set = one UpdateItem per entry, 32 in flight; get = one
 * BatchGetItem; resolve = one BatchGetItem per 100 keys (each user's document and
 * organization entries), all at once. No middleware, no authentication, no validation, no
 * envelope, no resolving: the layers are answered as read.
 */
const dynamo = await startEmbeddedDynamo();
Object.assign(process.env, {
  AWS_REGION: 'local',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
});
const { documentClient } = await import('#shared/platform/aws-clients.js');
const { DynamoPreferenceStore } = await import('#shared/preferences/dynamo-store.js');
const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
const admin = new DynamoDBClient({ endpoint: dynamo.endpoint });
await ensureTables(admin);
admin.destroy();
const store = new DynamoPreferenceStore(documentClient, TABLES.config.localName);

interface Body {
  organizationId: string;
  userIds?: string[];
  userId?: string;
  documentId?: string;
  documentIds?: string[];
  config?: Record<string, string>;
}

const handle = async (path: string, data: Body): Promise<unknown> => {
  if (path.endsWith('/config/resolve')) {
    return Object.fromEntries(
      await store.getUserLayers(data.organizationId, data.documentId ?? '', data.userIds ?? []),
    );
  }
  const documentIds: (string | null)[] = data.documentIds ?? [null];
  if (path.endsWith('/config/set')) {
    const keys: EntryKey[] = (data.userIds ?? []).flatMap((userId) =>
      documentIds.map((documentId) => ({ organizationId: data.organizationId, userId, documentId })),
    );
    const meta = { updatedAt: new Date().toISOString(), updatedBy: 'baseline' };
    await pMap(keys, (key) => store.setChannels(key, data.config ?? {}, meta), {
      concurrency: REQUEST_WRITE_CONCURRENCY,
    });
    return { written: keys.length };
  }
  const keys: EntryKey[] = [...documentIds, null].map((documentId) => ({
    organizationId: data.organizationId,
    userId: data.userId ?? '',
    documentId,
  }));
  return store.getEntries(keys);
};

const server = createServer(async (request, response) => {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: Body };
    const body = JSON.stringify({ result: await handle(request.url ?? '/', data) });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  } catch (error) {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: String(error) }));
  }
});
server.keepAliveTimeout = 5_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
serve({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, headers: {} }, async () => {
  server.close();
  await dynamo.close();
});
