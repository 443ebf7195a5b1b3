import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { encodeCursor, type HistoryKey } from '#shared/history/cursor.js';
import { deriveKeyring, newKeyringDocument, serializeKeyringDocument } from '#shared/links/keyring.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

setUnitTestEnv();
logger.setLogLevel('SILENT');
const ddb = mockClient(DynamoDBDocumentClient);
const secrets = mockClient(SecretsManagerClient);
const KEYS = newKeyringDocument('k1');
const keyring = deriveKeyring(KEYS);
/** A cursor sealed with the deployment's key for a request of alice in org-1 (or `scope`). */
const sealed = (key: HistoryKey, scope: { userId?: string; documentId?: string | null } = {}) =>
  encodeCursor(key, { organizationId: 'org-1', userId: 'alice', ...scope }, keyring);
let handler: HttpHandler;
let apiKey: string;
let counter = 0;

beforeAll(async () => {
  ({ handler } = await import('#functions/get-config-history.js'));
});

const stored = {
  pk: 'H#org-1#alice',
  sk: '2026-01-01T00:00:00.000Z#0000000000000000000000000000000000000007',
  entryPk: 'DOC#org-1#doc-1',
  entrySk: 'alice#2026-01-01T00:00:00.000Z#0000000000000000000000000000000000000007',
  changeId: 'c-7',
  organizationId: 'org-1',
  userId: 'alice',
  documentId: 'doc-1',
  scope: 'document',
  cause: 'set',
  changedAt: '2026-01-01T00:00:00.000Z',
  changedBy: 'ak_1',
  before: {},
  after: { inbox: 'NONE' },
  expiresAt: 1_800_000_000,
};

beforeEach(() => {
  ddb.reset();
  secrets.reset();
  secrets.on(GetSecretValueCommand).resolves({ SecretString: serializeKeyringDocument(KEYS) });
  apiKey = `ak_h${++counter}`;
  ddb.on(GetCommand, { TableName: 'credentials-table', Key: { apiKey } }).resolves({
    Item: credentialRecord({ apiKey, organizationIds: ['org-1', 'org-2'] }),
  });
  ddb.on(QueryCommand).resolves({ Items: [stored] });
});

const call = async (data: unknown) =>
  parseResponse(
    await handler(
      apiEvent('/v2/notifications/config/history', { headers: authHeaders(apiKey), body: { data } }),
      lambdaContext(),
    ),
  );

const queries = () => ddb.commandCalls(QueryCommand).map((c) => c.args[0].input);

describe('POST /v2/notifications/config/history', () => {
  test("every entry of the user: one Query of the user's partition, newest first, 50 by default", async () => {
    const { statusCode, body } = await call({ organizationId: 'org-1', userId: 'alice' });
    expect(statusCode).toBe(200);
    expect(body.result).toEqual({
      status: 'success',
      message: 'User config history retrieved successfully.',
      data: {
        changes: [
          {
            changeId: 'c-7',
            organizationId: 'org-1',
            userId: 'alice',
            documentId: 'doc-1',
            scope: 'document',
            category: null,
            cause: 'set',
            changedAt: '2026-01-01T00:00:00.000Z',
            changedBy: 'ak_1',
            evidence: { via: 'api' },
            before: {},
            after: { inbox: 'NONE' },
          },
        ],
      },
    });
    expect(queries()).toEqual([
      expect.objectContaining({
        TableName: 'history-table',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'H#org-1#alice' },
        ScanIndexForward: false,
        Limit: 50,
      }),
    ]);
    expect(queries()[0]?.IndexName).toBeUndefined();
  });

  test("a document, or null for the organization level: the entry index, that entry's partition, the user's prefix", async () => {
    await call({ organizationId: 'org-1', userId: 'al#ice', documentId: 'doc-1', limit: 3 });
    await call({ organizationId: 'org-1', userId: 'alice', documentId: null });
    expect(queries()).toEqual([
      expect.objectContaining({
        IndexName: 'byEntry',
        ExpressionAttributeValues: { ':pk': 'DOC#org-1#doc-1', ':user': 'al%23ice#' },
        Limit: 3,
      }),
      expect.objectContaining({
        IndexName: 'byEntry',
        ExpressionAttributeValues: { ':pk': 'ORG#org-1', ':user': 'alice#' },
      }),
    ]);
  });

  test('a page that stops early gives an opaque cursor, which continues the same Query', async () => {
    const lastKey = { pk: stored.pk, sk: stored.sk };
    ddb.on(QueryCommand).resolves({ Items: [stored], LastEvaluatedKey: lastKey });
    const first = await call({ organizationId: 'org-1', userId: 'alice', limit: 1 });
    const { nextCursor } = (first.body.result?.data ?? {}) as { nextCursor?: string };
    expect(nextCursor).toMatch(/^k1\.[A-Za-z0-9_-]+$/);
    // Nothing of the key layout shows, in the cursor or in its base64url decoding.
    const shown = `${nextCursor} ${Buffer.from((nextCursor ?? '').slice(3), 'base64url').toString('latin1')}`;
    for (const part of ['H#', 'org-1', 'alice', 'pk', 'sk', '2026-01-01']) expect(shown).not.toContain(part);
    await call({ organizationId: 'org-1', userId: 'alice', limit: 1, cursor: nextCursor });
    expect(queries()[1]?.ExclusiveStartKey).toEqual(lastKey);
  });

  test('a cursor of another user, another filter, unsigned, altered or forged is INVALID_ARGUMENT, and nothing is read', async () => {
    const mine = { pk: stored.pk, sk: stored.sk };
    const real = sealed(mine);
    const [keyId, body] = real.split('.') as [string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[20] = (flipped[20] as number) ^ 1;
    const cases: [string, unknown][] = [
      ['another user', { organizationId: 'org-1', userId: 'bob', cursor: real }],
      ['another organization', { organizationId: 'org-2', userId: 'alice', cursor: real }],
      ['a document filter', { organizationId: 'org-1', userId: 'alice', documentId: 'doc-1', cursor: real }],
      ['the organization-level filter', { organizationId: 'org-1', userId: 'alice', documentId: null, cursor: real }],
      // What cursors were before: the key as base64url JSON, unsigned.
      [
        'an unsigned cursor of a valid key',
        { organizationId: 'org-1', userId: 'alice', cursor: Buffer.from(JSON.stringify(mine)).toString('base64url') },
      ],
      [
        'one bit altered',
        { organizationId: 'org-1', userId: 'alice', cursor: `${keyId}.${flipped.toString('base64url')}` },
      ],
      ['another key id', { organizationId: 'org-1', userId: 'alice', cursor: `k2.${body}` }],
      ['truncated', { organizationId: 'org-1', userId: 'alice', cursor: `${keyId}.${body.slice(0, 30)}` }],
      [
        'sealed with a key of another deployment',
        {
          organizationId: 'org-1',
          userId: 'alice',
          cursor: encodeCursor(
            mine,
            { organizationId: 'org-1', userId: 'alice' },
            deriveKeyring(newKeyringDocument('k1')),
          ),
        },
      ],
      ['not a cursor', { organizationId: 'org-1', userId: 'alice', cursor: 'not a cursor!' }],
      // Sealed with the real key (as if it leaked), the key inside is still checked whole.
      ['an extra key', { organizationId: 'org-1', userId: 'alice', cursor: sealed({ ...mine, x: 'y' }) }],
      [
        "another user's entry key",
        {
          organizationId: 'org-1',
          userId: 'alice',
          documentId: 'doc-1',
          cursor: sealed({ ...mine, entryPk: stored.entryPk, entrySk: `bob#${stored.sk}` }, { documentId: 'doc-1' }),
        },
      ],
    ];
    for (const [name, data] of cases) {
      const { statusCode, body: answer } = await call(data);
      expect({ name, statusCode, status: answer.error?.status, message: answer.error?.message }).toEqual({
        name,
        statusCode: 400,
        status: 'INVALID_ARGUMENT',
        message: 'cursor is not valid for this request; start again without it.',
      });
    }
    expect(queries()).toEqual([]);
  });

  test('a single page reads no key, nor does text that cannot be a cursor (the link keys are read only for one)', async () => {
    await call({ organizationId: 'org-1', userId: 'alice' });
    for (const cursor of ['not a cursor!', 'k1.', 'k1.AAAA', 'eyJwayI6IkgjIn0'])
      expect((await call({ organizationId: 'org-1', userId: 'alice', cursor })).statusCode).toBe(400);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  test('limit outside 1..100 and a documentId that is not an identifier are INVALID_ARGUMENT', async () => {
    for (const data of [
      { organizationId: 'org-1', userId: 'alice', limit: 0 },
      { organizationId: 'org-1', userId: 'alice', limit: 101 },
      { organizationId: 'org-1', userId: 'alice', limit: 2.5 },
      { organizationId: 'org-1', userId: 'alice', documentId: '' },
      { organizationId: 'org-1', userId: 'alice', documentId: 7 },
    ]) {
      const { statusCode, body } = await call(data);
      expect({ data, statusCode, status: body.error?.status }).toEqual({
        data,
        statusCode: 400,
        status: 'INVALID_ARGUMENT',
      });
    }
  });
});
