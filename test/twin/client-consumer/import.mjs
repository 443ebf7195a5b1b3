// Plain ES module JavaScript: import the package and call the API.
import { createClient, ServiceError } from '@notification-preferences/client';
import * as node from '@notification-preferences/client/node';

const [baseUrl, apiKey, token, organizationId] = process.argv.slice(2);
const client = createClient({ baseUrl, apiKey, token });

await client.setConfig({ organizationId, userIds: ['cy'], documentIds: ['doc-c'], config: { email: 'ALL' } });
const item = await client.getConfigItem({ organizationId, userId: 'cy', documentId: 'doc-c' });
const refused = await client.getErasureStatus({ organizationId, erasureId: 'no-such-id' }).catch((error) => error);
console.log(
  JSON.stringify({
    email: item.effective.email,
    refused: refused instanceof ServiceError && refused.status,
    // The Node entry: the same classes, and a client with the file methods.
    nodeEntry:
      node.ServiceError === ServiceError &&
      typeof node.createClient({ baseUrl, apiKey, token }).exportToFile === 'function',
  }),
);
