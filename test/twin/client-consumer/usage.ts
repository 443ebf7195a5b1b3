// A consumer's program, compiled by test/twin/client-package.test.ts with tsc under
// `module: nodenext` and the strictest flags a project may set (exactOptionalPropertyTypes,
// noUncheckedIndexedAccess), once as an ES module and once as CommonJS, then run against the
// local service. It is outside the repository's own type check: it imports the packed package.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChannelConfig,
  type ChannelName,
  type ChannelValue,
  type ConfigChange,
  type ConfigItem,
  type ConfigScope,
  type ConfigSource,
  createClient,
  type ErrorStatus,
  type MigrationStatus,
  ServiceError,
  type UserWriteResult,
} from '@notification-preferences/client';
import {
  createClient as createNodeClient,
  type ExportStatusResult,
  FileTransferError,
  type ImportStatusResult,
} from '@notification-preferences/client/node';

const [baseUrl = '', apiKey = '', token = '', organizationId = ''] = process.argv.slice(2);

// Settings that may be missing, as they come from a caller's configuration.
const settings: { timeoutMs?: number; attempts?: number } = {};
const client = createClient({
  baseUrl,
  apiKey,
  token,
  timeoutMs: settings.timeoutMs,
  retry: { attempts: settings.attempts, baseDelayMs: 50 },
});

/** Some documents, or none for the organization-level entry. */
const maybeIds = (ids: string[]): string[] | undefined => (ids.length > 0 ? ids : undefined);

/** One channel's change, the others left as stored. */
const change = (channel: ChannelName, value: ChannelValue | undefined): ChannelConfig => ({ [channel]: value });

const describe = (item: ConfigItem): string => {
  const scope: ConfigScope = item.scope;
  const where: ConfigSource = item.source.email;
  return `${scope}:${item.effective.email}:${where}`;
};

/** Every change of a user's entries, page by page. */
const allChanges = async (userId: string): Promise<ConfigChange[]> => {
  const changes: ConfigChange[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.getConfigHistory({ organizationId, userId, limit: 100, cursor });
    changes.push(...page.changes);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return changes;
};

const main = async () => {
  const written = await client.setConfig({
    organizationId,
    userIds: ['ann', 'ben'],
    documentIds: maybeIds([]),
    config: { inbox: 'MINE', slack: undefined },
  });
  const annWrite: UserWriteResult | undefined = written.ann;
  await client.setConfig({
    organizationId,
    userIds: ['ann'],
    documentIds: maybeIds(['doc-a']),
    config: { ...change('email', 'NONE'), slack: 'ALL' },
  });

  // The one item asked for, with no `undefined` to rule out first.
  const onDocument = await client.getConfigItem({ organizationId, userId: 'ann', documentId: 'doc-a' });
  const inbox: ChannelValue = onDocument.effective.inbox;
  const organizationLevel = await client.getConfigItem({ organizationId, userId: 'ann', documentId: undefined });
  // getConfig keeps its list: an index may be out of range.
  const [first] = await client.getConfig({ organizationId, userId: 'ann', documentIds: ['doc-a'] });

  // A pager's first call has no cursor.
  await allChanges('ann');

  const { migrationId } = await client.migrateDocument({ organizationId, documentId: 'doc-a', newDocumentId: 'doc-b' });
  const done = await client.waitForMigration(
    { organizationId, migrationId },
    { intervalMs: 50, timeoutMs: 20_000, signal: undefined },
  );
  const state: MigrationStatus = done.status;
  const moved = await client.getConfigItem(
    { organizationId, userId: 'ann', documentId: 'doc-b' },
    { deadlineMs: 10_000 },
  );

  const missing: ErrorStatus | 'UNKNOWN' | 'found' = await client
    .getMigrationStatus({ organizationId, migrationId: 'no-such-id' })
    .then(
      () => 'found' as const,
      (error: unknown) => (error instanceof ServiceError ? error.status : 'UNKNOWN'),
    );

  // The Node entry: the organization's export, streamed to a file.
  const folder = mkdtempSync(join(tmpdir(), 'consumer-export-'));
  const statuses: string[] = [];
  let exported: ExportStatusResult | FileTransferError;
  let exportedLines = -1;
  try {
    exported = await createNodeClient({ baseUrl, apiKey, token })
      .exportToFile({ organizationId, format: 'jsonl', documentIds: undefined }, join(folder, 'export.jsonl'), {
        intervalMs: 50,
        onProgress: (status) => statuses.push(status.status),
      })
      .catch((error: unknown) => {
        if (error instanceof FileTransferError) return error;
        throw error;
      });
    if (!(exported instanceof FileTransferError)) {
      exportedLines = readFileSync(join(folder, 'export.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }

  // A dry run of a CSV, uploaded from bytes.
  const imported: ImportStatusResult = await createNodeClient({ baseUrl, apiKey, token }).importFile(
    { organizationId, format: 'csv', dryRun: true, compression: undefined },
    Buffer.from('userId,email\nzed,NONE\n'),
    { intervalMs: 50, signal: undefined },
  );

  // @ts-expect-error the published types refuse an unknown channel value
  void (() => client.setConfig({ organizationId, userIds: ['ann'], config: { inbox: 'SOME' } }));
  // @ts-expect-error and a missing newDocumentId
  void (() => client.migrateDocument({ organizationId, documentId: 'doc-a' }));

  console.log(
    JSON.stringify({
      write: annWrite?.scope,
      inbox,
      onDocument: describe(onDocument),
      organizationLevel: describe(organizationLevel),
      first: first === undefined ? 'none' : describe(first),
      state,
      moved: moved.config,
      missing,
      exported: exported instanceof FileTransferError ? exported.code : exported.status,
      exportedAll: exported instanceof FileTransferError ? false : exportedLines === exported.rows,
      lastProgress: statuses.at(-1),
      imported: [imported.status, imported.dryRun, imported.rowsApplied],
    }),
  );
};

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
