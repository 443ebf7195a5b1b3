import type { Delivery, RunOutcome } from '#shared/jobs/delivery-policy.js';
import type { RunDeps } from '#shared/jobs/pages.js';
import { runJob } from '#shared/jobs/run.js';
import type { JobStep } from '#shared/jobs/step.js';
import type { ForwardWriter } from '#shared/links/forwarding.js';
import { MIGRATION_WRITE_CONCURRENCY } from '#shared/preferences/batching.js';
import { type ChangeAttribution, migrationActor } from '#shared/preferences/change-attribution.js';
import type { MigrationEntries } from './copies.js';
import { migrationJob } from './kind.js';
import type { MigrationRecord } from './model.js';
import { copyPage, deleteSources, PAGE_SIZE, pageCounts, skippedSources } from './move-page.js';
import { nextCheckpoint } from './skipped-checkpoint.js';

/** Pages in a row that deleted nothing (every entry changed under us) before the run gives up. */
export const MAX_STALLED_PAGES = 5;

export interface WorkerDeps extends RunDeps<MigrationRecord> {
  entries: MigrationEntries;
  /** Leaves the forwarding record that links in emails about the old document follow (shared/links/forwarding.ts). */
  forwards?: ForwardWriter;
  pageSize?: number;
  concurrency?: number;
}

/**
 * A migration's page (docs/design.md, One delivery of the consumer), under the engine's lease:
 * the first PAGE_SIZE source entries (always from the start: processed entries are deleted),
 * their targets in one batch read, then each entry decided and written (move-page.ts,
 * move-decision.ts). Its counts and the skipped checkpoint are saved by the engine, and only
 * then are the source entries deleted, each only if unchanged. An empty source completes it,
 * after leaving the forwarding record of the old document for the links in emails (written again,
 * the same, by a rerun of the completion).
 */
export const moveStep: JobStep<MigrationRecord, WorkerDeps> = (deps, { record, run, savedPages, now }) => {
  const { entries, pageSize = PAGE_SIZE, concurrency = MIGRATION_WRITE_CONCURRENCY } = deps;
  const { migrationId, organizationId, documentId, newDocumentId } = record;
  let checkpoint = new Set(record.skippedCheckpoint);
  let stalled = 0;

  return async (page) => {
    const sources = await entries.listDocumentEntries(organizationId, documentId, pageSize);
    if (sources.length === 0) {
      await deps.forwards?.forward({ organizationId, documentId, newDocumentId, migrationId }, now());
      return { outcome: 'done' };
    }
    // Every copy and delete of the page is the migration's change (change-attribution.ts).
    const change: ChangeAttribution = {
      cause: 'migration',
      changedBy: migrationActor(migrationId),
      changedAt: now().toISOString(),
    };
    const outcomes = await copyPage(
      entries,
      sources,
      { migrationId, organizationId, newDocumentId, run, page, savedPages, checkpoint },
      concurrency,
      change,
    );
    const next = nextCheckpoint(checkpoint, sources, pageSize, skippedSources(outcomes));
    return {
      outcome: 'page',
      counts: pageCounts(outcomes),
      fields: { skippedCheckpoint: [...next] },
      saved: async () => {
        checkpoint = next;
        stalled = (await deleteSources(entries, outcomes, change)) ? 0 : stalled + 1;
        if (stalled >= MAX_STALLED_PAGES) {
          throw new Error(`No progress on migration ${migrationId} in ${stalled} pages: its entries keep changing`);
        }
      },
    };
  };
};

/** Performs (part of) one migration for one queue delivery: the engine's run with the move step. */
export const runMigration = (deps: WorkerDeps, migrationId: string, delivery: Delivery): Promise<RunOutcome> =>
  runJob(migrationJob, moveStep, deps, migrationId, delivery);
