import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { TABLES } from '#service/tables.js';
import { unescapeKeyPart } from '#shared/platform/key-parts.js';
import type { DeliveryAttempt } from '#shared/webhooks/model.js';
import { printable } from '../cli/output.js';

/**
 * The latest webhook delivery attempts (shared/webhooks/keys.ts: the history table's `WEBHOOK#`
 * items), newest first, read with a Scan (a local store is small): which endpoint, which event,
 * the answer's status (or none) and, when one is planned, the next attempt.
 */
export const inspectDeliveries = async (
  doc: DynamoDBDocumentClient,
  organizationId: string | undefined,
  limit: number,
): Promise<string[]> => {
  const found: (DeliveryAttempt & { organizationId: string; endpointId: string })[] = [];
  const scan = {
    TableName: TABLES.history.localName,
    FilterExpression: 'begins_with(pk, :prefix)',
    ExpressionAttributeValues: { ':prefix': 'WEBHOOK#' },
  };
  for await (const page of paginateScan({ client: doc }, scan)) {
    for (const item of page.Items ?? []) {
      const [, organization = '', endpointId = ''] = String(item.pk).split('#');
      const owner = unescapeKeyPart(organization);
      if (organizationId === undefined || owner === organizationId) {
        found.push({ ...(item as DeliveryAttempt), organizationId: owner, endpointId });
      }
    }
  }
  found.sort((a, b) => b.attemptedAt.localeCompare(a.attemptedAt));
  const shown = limit > 0 ? found.slice(0, limit) : found;
  const whose = organizationId === undefined ? '' : `, organization ${JSON.stringify(organizationId)}`;
  if (found.length === 0) return [printable(`Webhook deliveries${whose}: none in the last 30 days`)];
  return [
    printable(`Webhook deliveries${whose}: the last ${shown.length} of ${found.length}, newest first`),
    ...shown.map((one) =>
      printable(
        `  ${one.attemptedAt}  ${JSON.stringify(one.organizationId)} ${one.endpointId}  ${one.type} ${JSON.stringify(one.eventId)}` +
          `  attempt ${one.attempt}: ${one.statusCode ?? 'no answer'} in ${one.durationMs} ms` +
          (one.nextAttemptAt ? `, next at ${one.nextAttemptAt}` : ''),
      ),
    ),
  ];
};
