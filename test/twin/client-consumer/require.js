// Plain CommonJS, as a project made by `npm init -y` writes it: require() the package and call the API.
const { createClient, ServiceError } = require('@notification-preferences/client');
const node = require('@notification-preferences/client/node');

const [baseUrl, apiKey, token, organizationId] = process.argv.slice(2);
const client = createClient({ baseUrl, apiKey, token });

client
  .setConfig({ organizationId, userIds: ['cy'], documentIds: ['doc-c'], config: { email: 'ALL' } })
  .then(() => client.getConfigItem({ organizationId, userId: 'cy', documentId: 'doc-c' }))
  .then(async (item) => {
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
  })
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
