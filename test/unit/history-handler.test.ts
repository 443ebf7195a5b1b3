import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import type { HttpHandler } from '#shared/edge/http-route.js';
import { encodeCursor } from '#shared/history/cursor.js';
import { logger } from '#shared/platform/logger.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { authHeaders, credentialRecord } from '../support/credentials.js';
import { setUnitTestEnv } from '../support/test-env.js';

setUnitTestEnv();
logger.setLogLevel('SILENT');
const ddb = mockClient(DynamoDBDocumentClient);
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
  apiKey = `ak_h${++counter}`;
  ddb.on(GetCommand, { TableName: 'credentials-table', Key: { apiKey } }).resolves({
    Item: credentialRecord({ apiKey, organizationIds: ['org-1'] }),
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

  test('a page that stops early gives a cursor, which continues the same Query', async () => {
    const lastKey = { pk: stored.pk, sk: stored.sk };
    ddb.on(QueryCommand).resolves({ Items: [stored], LastEvaluatedKey: lastKey });
    const first = await call({ organizationId: 'org-1', userId: 'alice', limit: 1 });
    const { nextCursor } = (first.body.result?.data ?? {}) as { nextCursor?: string };
    expect(nextCursor).toBe(encodeCursor(lastKey));
    await call({ organizationId: 'org-1', userId: 'alice', limit: 1, cursor: nextCursor });
    expect(queries()[1]?.ExclusiveStartKey).toEqual(lastKey);
  });

  test('a cursor of another user, another filter, or altered is INVALID_ARGUMENT, and nothing is read', async () => {
    const mine = { pk: stored.pk, sk: stored.sk };
    const cases: [string, unknown][] = [
      ['another user', { organizationId: 'org-1', userId: 'bob', cursor: encodeCursor(mine) }],
      [
        'a document filter',
        { organizationId: 'org-1', userId: 'alice', documentId: 'doc-1', cursor: encodeCursor(mine) },
      ],
      ['not base64url JSON', { organizationId: 'org-1', userId: 'alice', cursor: 'not a cursor!' }],
      ['an extra key', { organizationId: 'org-1', userId: 'alice', cursor: encodeCursor({ ...mine, x: 'y' }) }],
      [
        "another user's entry key",
        {
          organizationId: 'org-1',
          userId: 'alice',
          documentId: 'doc-1',
          cursor: encodeCursor({ ...mine, entryPk: stored.entryPk, entrySk: `bob#${stored.sk}` }),
        },
      ],
    ];
    for (const [name, data] of cases) {
      const { statusCode, body } = await call(data);
      expect({ name, statusCode, status: body.error?.status }).toEqual({
        name,
        statusCode: 400,
        status: 'INVALID_ARGUMENT',
      });
    }
    expect(queries()).toEqual([]);
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
