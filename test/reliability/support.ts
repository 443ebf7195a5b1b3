import { setTimeout as sleep } from 'node:timers/promises';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { type Credential, hashToken } from '#shared/auth/credential.js';
import type { CallResult, LocalService } from '../support/local-service.js';

export const PATHS = {
  set: '/v2/notifications/config/set',
  get: '/v2/notifications/config/get',
  migrate: '/v2/organizations/documents/migrate',
  status: '/v2/organizations/documents/migrate/status',
} as const;

export interface TestCredential {
  apiKey: string;
  token: string;
}

/** Stores a credential record (only the token's hash, as the credentials command does). */
export const addCredential = async (
  service: LocalService,
  apiKey: string,
  organizationIds: Credential['organizationIds'],
  extra: Partial<Credential> = {},
): Promise<TestCredential> => {
  const token = `st_${apiKey}-secret-${Math.random().toString(36).slice(2)}`;
  await service.doc.send(
    new PutCommand({
      TableName: service.tables.credentials,
      Item: { apiKey, tokenHash: hashToken(token), organizationIds, createdAt: new Date().toISOString(), ...extra },
    }),
  );
  return { apiKey, token };
};

/** A call with a given credential (or none). */
export const callAs = (
  service: LocalService,
  credential: TestCredential | undefined,
  path: string,
  data: unknown,
): Promise<CallResult> =>
  service.call(path, data, {
    headers: {
      'x-service-api-key': credential?.apiKey,
      'x-service-auth-token': credential?.token,
    },
  });

/** Polls the status route until the migration is no longer active. */
export const waitForMigration = async (
  service: LocalService,
  credential: TestCredential | undefined,
  organizationId: string,
  migrationId: string,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await (credential
      ? callAs(service, credential, PATHS.status, { organizationId, migrationId })
      : service.call(PATHS.status, { organizationId, migrationId }));
    const data = response.body.result?.data as Record<string, unknown> | undefined;
    if (data && (data.status === 'completed' || data.status === 'failed')) return data;
    if (Date.now() > until) throw new Error(`migration ${migrationId} still ${JSON.stringify(response.body)}`);
    await sleep(20);
  }
};

type Consumer = (event: SQSEvent, context: Context) => Promise<unknown>;

/**
 * The real migration consumer, loaded on first delivery (the runtime sets its environment
 * first), behind a gate that tests can close to keep migrations pending.
 */
export const gatedConsumer = () => {
  let open: Promise<void> = Promise.resolve();
  let release: () => void = () => {};
  let deliveries = 0;
  const consumer: Consumer = async (event, context) => {
    deliveries += event.Records.length;
    await open;
    const { handler } = (await import('#functions/migration-consumer.js')) as { handler: Consumer };
    return handler(event, context);
  };
  return {
    consumer,
    close() {
      open = new Promise((resolve) => {
        release = resolve;
      });
    },
    open() {
      release();
    },
    get deliveries() {
      return deliveries;
    },
  };
};
