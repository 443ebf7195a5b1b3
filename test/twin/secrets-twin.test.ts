import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  LOCAL_LINK_KEYS_ARN,
  LOCAL_LINK_KEYS_SECRET,
  type LocalSecretsManager,
  startLocalSecretsManager,
} from '#local/secrets/local-secrets-manager.js';
import { parseKeyringDocument } from '#shared/links/keyring.js';

// The Secrets Manager stand-in through the real SDK v3 client (AWS JSON 1.1), and over raw HTTP
// for what no SDK sends: the one secret by name and ARN, Secrets Manager's refusals, and a body
// or a target an attacker on the loopback might send.
let twin: LocalSecretsManager;
let client: SecretsManagerClient;
const logged: string[] = [];

beforeAll(async () => {
  twin = await startLocalSecretsManager({ accessKeyId: 'local', log: (line) => logged.push(line) });
  client = new SecretsManagerClient({
    endpoint: twin.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await twin.close();
});

const raw = (target: string, body: string) =>
  fetch(twin.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': target,
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/local/x/aws4_request, SignedHeaders=host, Signature=0',
    },
    body,
  });

describe('the link keys', () => {
  test('are read by name and by ARN, a keyring the functions can parse', async () => {
    const byName = await client.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }));
    const byArn = await client.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_ARN }));
    expect(byArn.SecretString).toBe(byName.SecretString);
    const keyring = parseKeyringDocument(byName.SecretString);
    expect(Object.keys(keyring.keys)).toContain(keyring.current);
  });

  test('a new value replaces the old one, with a new version', async () => {
    const before = await client.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }));
    const value = JSON.stringify({ ...JSON.parse(before.SecretString ?? '{}'), note: 'rotated' });
    const put = await client.send(new PutSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET, SecretString: value }));
    const after = await client.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }));
    expect(after.SecretString).toBe(value);
    expect(after.VersionId).toBe(put.VersionId);
    expect(after.VersionId).not.toBe(before.VersionId);
  });
});

describe("Secrets Manager's refusals", () => {
  test('another secret is not found', async () => {
    await expect(client.send(new GetSecretValueCommand({ SecretId: 'other' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  test('an empty value is refused and the secret keeps its value', async () => {
    const before = await client.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }));
    await expect(
      client.send(new PutSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET, SecretString: '' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    const after = await client.send(new GetSecretValueCommand({ SecretId: LOCAL_LINK_KEYS_SECRET }));
    expect(after.SecretString).toBe(before.SecretString);
  });

  test.each([
    ['an operation it does not have', 'secretsmanager.DeleteSecret'],
    ["a name of Object's prototype", 'secretsmanager.constructor'],
    ['another service', 'AmazonSQS.SendMessage'],
    ['no target', ''],
  ])('%s is an unknown operation (400), never run', async (_case, target) => {
    const response = await raw(target, JSON.stringify({ SecretId: LOCAL_LINK_KEYS_SECRET }));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });

  test.each([
    ['not JSON', '{'],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
  ])('a body that is %s is a SerializationException', async (_case, body) => {
    const response = await raw('secretsmanager.GetSecretValue', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'SerializationException' });
  });

  test('a body over 256 KiB is refused (413) without being read to its end', async () => {
    const response = await raw('secretsmanager.PutSecretValue', 'x'.repeat(256 * 1024 + 1));
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toMatchObject({ __type: 'InvalidRequestException' });
    expect(logged).toEqual([]);
  });
});
