import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { MIGRATION_CONSUMER_FUNCTION, memoryOf } from '#service/functions.js';
import { PATHS, waitForMigration } from '../reliability/support.js';
import { apiEvent, lambdaContext, parseResponse } from '../support/api-events.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

// The twin runs every function in one process, with invocations overlapping: each function's
// log lines must still carry its own name and request id, and only its own appended keys (as
// on Lambda, where each has a process of its own).
let service: LocalService;
const lines: string[] = [];

beforeAll(async () => {
  service = await startLocalService({ env: { POWERTOOLS_LOG_LEVEL: 'INFO' } });
});
afterAll(async () => {
  await service?.close();
});

const ORG = 'org-logs';

test('overlapping invocations of different functions each log their own function name, memory and keys', async () => {
  const users = Array.from({ length: 100 }, (_, i) => `user-${i}`);
  const documents = ['doc-1', 'doc-2', 'doc-3', 'doc-4'];
  for (const documentId of documents) {
    const set = await service.call(PATHS.set, {
      organizationId: ORG,
      userIds: users,
      documentIds: [documentId],
      config: { email: 'NONE' },
    });
    expect(set.status).toBe(200);
  }
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    lines.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => line.startsWith('{')),
    );
    return true;
  });
  try {
    const migrations = await Promise.all(
      documents.map(async (documentId) => {
        const response = await service.call(PATHS.migrate, {
          organizationId: ORG,
          documentId,
          newDocumentId: `${documentId}-moved`,
        });
        expect(response.status).toBe(200);
        return (response.body.result!.data as { migrationId: string }).migrationId;
      }),
    );
    // Requests from the route functions while the consumer runs, each of them logging as it goes.
    let done = false;
    const traffic = (async () => {
      while (!done)
        await Promise.all(users.slice(0, 8).map((userId) => service.call(PATHS.get, { organizationId: ORG, userId })));
    })();
    for (const migrationId of migrations) await waitForMigration(service, undefined, ORG, migrationId);
    done = true;
    await traffic;
    await service.queue.whenIdle();
  } finally {
    write.mockRestore();
  }

  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const consumer = logged.filter((entry) => String(entry.message).startsWith('Migration '));
  expect(consumer.length).toBeGreaterThanOrEqual(8); // started and completed, for each migration
  for (const entry of consumer) {
    // ...with the memory the stack gives the consumer.
    expect(entry).toMatchObject({
      function_name: expect.stringMatching(/-MigrationConsumer$/),
      function_memory_size: String(memoryOf(MIGRATION_CONSUMER_FUNCTION)),
    });
    // The credential's key is appended by the routes' middleware, never by the consumer.
    expect(entry).not.toHaveProperty('apiKey');
  }
}, 120_000);

test('a handler called directly, outside any twin invocation, still works while the twin runs (as the bench calls them)', async () => {
  const { handler } = await import('#functions/get-config.js');
  const response = parseResponse(
    await handler(
      apiEvent(PATHS.get, {
        headers: service.authHeaders(),
        body: { data: { organizationId: ORG, userId: 'user-1' } },
      }),
      lambdaContext(),
    ),
  );
  expect(response.statusCode).toBe(200);
});
