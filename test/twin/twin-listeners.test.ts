import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { LOCAL_LINK_KEYS_SECRET } from '#local/secrets/local-secrets-manager.js';
import { type LocalService, rawRequest, startLocalService } from '../support/local-service.js';

// Every listener the twin starts answers requests that name its own loopback address only (a
// web page made same-origin by DNS rebinding names its own host), and the AWS stand-ins and
// DynamoDB Local serve the twin's generated access key only (any local process could call them).
let service: LocalService;
beforeAll(async () => {
  service = await startLocalService();
}, 120_000);
afterAll(async () => {
  await service?.close();
});

const WRONG = { accessKeyId: 'LOCAL00000000000000000000', secretAccessKey: 'guessed-guessed-guessed' };
const signed = (accessKeyId: string) =>
  `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20200101/local/sqs/aws4_request, SignedHeaders=host, Signature=0`;

const EVENT = { EventBusName: 'notification-preferences-local', Source: 'test', DetailType: 'test', Detail: '{}' };

/** Each listener: its endpoint, and a request of its protocol that it answers 200. */
const listeners = () => ({
  API: {
    endpoint: service.baseUrl,
    path: '/v2/notifications/config/get',
    target: undefined,
    body: { data: { organizationId: 'acme', userId: 'ann', documentIds: ['d'] } },
  },
  SQS: { endpoint: service.sqsEndpoint, path: '/', target: 'AmazonSQS.ListQueues', body: {} },
  EventBridge: {
    endpoint: service.eventsEndpoint,
    path: '/',
    target: 'AWSEvents.PutEvents',
    body: { Entries: [EVENT] },
  },
  'Secrets Manager': {
    endpoint: service.secretsEndpoint,
    path: '/',
    target: 'secretsmanager.GetSecretValue',
    body: { SecretId: LOCAL_LINK_KEYS_SECRET },
  },
  DynamoDB: { endpoint: service.dynamoEndpoint, path: '/', target: 'DynamoDB_20120810.ListTables', body: {} },
});

describe.each(['API', 'SQS', 'EventBridge', 'Secrets Manager', 'DynamoDB'] as const)('%s', (name) => {
  const send = (host: string | undefined) => {
    const { endpoint, path, target, body } = listeners()[name];
    const port = new URL(endpoint).port;
    return rawRequest(`${endpoint}${path}`, {
      headers: [
        ...(host === undefined ? [] : ([['host', host.replace('PORT', port)]] as [string, string][])),
        ['content-type', target ? 'application/x-amz-json-1.0' : 'application/json'],
        ...(target ? ([['x-amz-target', target]] as [string, string][]) : []),
        ['authorization', signed(service.awsCredential.accessKeyId)],
        ...Object.entries(service.authHeaders()),
      ],
      body: JSON.stringify(body),
    });
  };

  test('its own address is answered', async () => {
    expect((await send(undefined)).status).toBe(200);
    // The name and the address of loopback alike.
    expect((await send('localhost:PORT')).status).toBe(200);
  });

  // An empty Host is no browser's (a rebinding page's requests name its host): DynamoDB Local's
  // Jetty takes it for the address the connection came to.
  const foreign = [
    'evil.example',
    'evil.example:PORT',
    'rebound.evil.example:PORT',
    ...(name === 'DynamoDB' ? [] : ['']),
  ];
  test.each(foreign)('a request naming Host %j is refused, and nothing is answered from the store', async (host) => {
    const response = await send(host);
    // DynamoDB Local's Jetty answers a foreign host 404; the twin's own listeners 421.
    expect(response.status).toBe(name === 'DynamoDB' ? 404 : 421);
    expect(response.text).not.toMatch(/TableNames|QueueUrls|SecretList|config/);
  });
});

describe('the AWS stand-ins and DynamoDB Local want the twin access key', () => {
  const region = 'local';

  test('SQS refuses another key (403), and serves the twin key', async () => {
    const wrong = new SQSClient({ endpoint: service.sqsEndpoint, region, credentials: WRONG, maxAttempts: 1 });
    const right = new SQSClient({ endpoint: service.sqsEndpoint, region, credentials: service.awsCredential });
    try {
      await expect(wrong.send(new ListQueuesCommand({}))).rejects.toMatchObject({
        name: 'UnrecognizedClientException',
        $metadata: { httpStatusCode: 403 },
      });
      expect((await right.send(new ListQueuesCommand({}))).QueueUrls?.length).toBeGreaterThan(0);
    } finally {
      wrong.destroy();
      right.destroy();
    }
  });

  test('EventBridge refuses another key (403): no event is accepted', async () => {
    const wrong = new EventBridgeClient({
      endpoint: service.eventsEndpoint,
      region,
      credentials: WRONG,
      maxAttempts: 1,
    });
    try {
      await expect(
        wrong.send(
          new PutEventsCommand({
            Entries: [{ EventBusName: 'notification-preferences-local', Source: 'x', DetailType: 'x', Detail: '{}' }],
          }),
        ),
      ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    } finally {
      wrong.destroy();
    }
  });

  test('Secrets Manager refuses another key (403): the link keys are not read', async () => {
    const wrong = new SecretsManagerClient({
      endpoint: service.secretsEndpoint,
      region,
      credentials: WRONG,
      maxAttempts: 1,
    });
    const right = new SecretsManagerClient({
      endpoint: service.secretsEndpoint,
      region,
      credentials: service.awsCredential,
    });
    try {
      await expect(wrong.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
      expect(
        (await right.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }))).SecretString,
      ).toBeTruthy();
    } finally {
      wrong.destroy();
      right.destroy();
    }
  });

  test('a request with no signature at all is refused by each stand-in', async () => {
    for (const [endpoint, target] of [
      [service.sqsEndpoint, 'AmazonSQS.ListQueues'],
      [service.eventsEndpoint, 'AWSEvents.PutEvents'],
      [service.secretsEndpoint, 'secretsmanager.GetSecretValue'],
    ] as const) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
        body: JSON.stringify({ SecretId: LOCAL_LINK_KEYS_SECRET }),
      });
      expect({ endpoint, status: response.status }).toEqual({ endpoint, status: 403 });
    }
  });

  test("DynamoDB Local shows another key none of the twin's tables (a database per access key, no shared one)", async () => {
    const wrong = new DynamoDBClient({ endpoint: service.dynamoEndpoint, region, credentials: WRONG, maxAttempts: 1 });
    try {
      expect((await wrong.send(new ListTablesCommand({}))).TableNames).toEqual([]);
      expect((await service.dynamo.send(new ListTablesCommand({}))).TableNames).toContain('credentials');
    } finally {
      wrong.destroy();
    }
  });
});
