import * as z from 'zod/mini';
import { identifier } from '#shared/api/identifiers.js';
import { jobMessage } from '#shared/jobs/queue.js';
import { isAbandoned } from '#shared/jobs/record.js';
import type { JobRepository } from '#shared/jobs/repository.js';
import { isActiveStatus } from '#shared/jobs/status.js';
import { logger } from '#shared/platform/logger.js';
import { importJob } from './kind.js';
import type { ImportRecord } from './model.js';

/*
 * The import queue carries two kinds of message: the engine's (`{"importId": id}`: a
 * continuation or a re-queue), and S3's notice that a file arrived in the imports folder, which
 * starts the import the file is for. S3 also sends a test message when the notification is set
 * up; it names no file.
 */

/** The parts of S3's event notification this reads (docs: "Event message structure"). */
const s3Notice = z.object({
  Records: z.array(z.object({ s3: z.object({ object: z.object({ key: z.string() }) }) })),
});
const s3TestEvent = z.object({ Event: z.literal('s3:TestEvent') });

export type ImportMessage = { importId: string } | { uploadedKeys: string[] } | { test: true };

export const importMessage = z.union([
  z.pipe(
    jobMessage(importJob),
    z.transform((importId: string) => ({ importId })),
  ),
  z.pipe(
    s3Notice,
    // S3 writes an object key in its notices URL-encoded, a space as '+'. A key that does not
    // decode is no notice of S3's: refused like any other message that is none of these.
    z.transform(({ Records }, context) => {
      try {
        return { uploadedKeys: Records.map(({ s3 }) => decodeURIComponent(s3.object.key.replaceAll('+', ' '))) };
      } catch {
        context.issues.push({ code: 'custom', message: 'An object key that is not URL-encoded', input: Records });
        return z.NEVER;
      }
    }),
  ),
  z.pipe(
    s3TestEvent,
    z.transform(() => ({ test: true as const })),
  ),
]);

/** imports/<organization>/<importId>-<random>: the import a key is for (shared/files/keys.ts). */
const KEY = /^imports\/[^/]+\/([^/]+)-[0-9a-f]{32}$/;

const importIdOf = (key: string): string | undefined => {
  const id = KEY.exec(key)?.[1];
  return id !== undefined && identifier('importId').safeParse(id).success ? id : undefined;
};

/**
 * The import a file that arrived is for, marked queued so that it no longer waits for its
 * upload; undefined (logged) when the key names none, one that has ended, or one given up on. A
 * notice delivered again (its first delivery failed) runs the import like any of its messages.
 */
export const importOfUpload = async (
  repository: Pick<JobRepository<ImportRecord>, 'get' | 'markQueued'>,
  key: string,
  now: Date,
): Promise<string | undefined> => {
  const importId = importIdOf(key);
  const record = importId === undefined ? undefined : await repository.get(importId);
  if (!record || record.fileKey !== key) {
    logger.warn('A file arrived that is no import’s upload: ignored', { key });
    return undefined;
  }
  if (!isActiveStatus(record.status)) {
    logger.info('An import’s file arrived after the import ended: ignored', { importId, status: record.status });
    return undefined;
  }
  if (record.queuedAt === undefined) {
    if (isAbandoned(record, now)) {
      logger.warn('An import’s file arrived after its import was given up on: ignored', { importId });
      return undefined;
    }
    await repository.markQueued(record.importId, now.toISOString());
  }
  return record.importId;
};
