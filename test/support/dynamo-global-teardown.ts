import type { DynamoDbLocal } from '#local/dynamodb-local.js';

/** Jest global teardown: stops the run's shared DynamoDB Local (test/support/dynamo-global.ts). */
export default async function stopSharedDynamo(): Promise<void> {
  const starting = (globalThis as { sharedDynamo?: Promise<DynamoDbLocal> }).sharedDynamo;
  const shared = await starting?.catch(() => undefined);
  await shared?.close();
}
