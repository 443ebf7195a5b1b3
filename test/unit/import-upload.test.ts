import { describe, expect, test } from '@jest/globals';
import { createImport } from '#shared/imports/create.js';
import { importJob, NO_UPLOAD } from '#shared/imports/kind.js';
import type { ImportRecord } from '#shared/imports/model.js';
import { importMessage, importOfUpload } from '#shared/imports/upload.js';
import { isAbandoned } from '#shared/jobs/record.js';
import { judgeJob } from '#shared/jobs/stuck-policy.js';
import { jobView } from '#shared/jobs/view.js';
import { logger } from '#shared/platform/logger.js';
import { MemoryFiles, MemoryJobRepository } from '../support/import-fakes.js';

// The import queue's messages: the engine's own, and S3's notice that an upload arrived, which
// starts the import it is for (and nothing else).

logger.setLogLevel('SILENT');

/** S3's event notification of one object created (docs: "Event message structure"), the key as S3 encodes it. */
const notice = (...keys: string[]) => ({
  Records: keys.map((key) => ({
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: 'eu-west-1',
    eventTime: '2026-06-01T00:00:05.000Z',
    eventName: 'ObjectCreated:Put',
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: 'imports',
      bucket: { name: 'files-bucket', arn: 'arn:aws:s3:::files-bucket' },
      object: { key, size: 120, eTag: '0123456789abcdef0123456789abcdef', sequencer: '0055AED6DCD90281E5' },
    },
  })),
});

describe('a message of the import queue', () => {
  test('the engine’s: the import’s id', () => {
    expect(importMessage.parse({ importId: 'imp-1' })).toEqual({ importId: 'imp-1' });
  });

  test('S3’s notice: the keys of the files that arrived, decoded (a space is "+", a plus "%2B")', () => {
    expect(importMessage.parse(notice('imports/org-1/imp-1-00ff', 'imports/acme+corp%2B1/a%2Fb+c'))).toEqual({
      uploadedKeys: ['imports/org-1/imp-1-00ff', 'imports/acme corp+1/a/b c'],
    });
  });

  test('S3’s notice of a key with an encoded organization id decodes once, to the key as stored', () => {
    // The key holds encodeURIComponent('a b') = 'a%20b'; S3 encodes its '%' again.
    expect(importMessage.parse(notice('imports/a%2520b/imp-1-00ff'))).toEqual({
      uploadedKeys: ['imports/a%20b/imp-1-00ff'],
    });
  });

  test('S3’s test event, sent when the notification is set up: it names no file', () => {
    const event = {
      Service: 'Amazon S3',
      Event: 's3:TestEvent',
      Time: '2026-06-01T00:00:00.000Z',
      Bucket: 'files-bucket',
      RequestId: '5582815E1AEA5ADF',
      HostId: '8cLeGAmw098X5cv4Zkwcmo8vvZa3eH3eKxsPzbB9wrR+YstdA6Knx4Ip8EXAMPLE',
    };
    expect(importMessage.parse(event)).toEqual({ test: true });
  });

  test.each([
    ['another kind’s message', { exportId: 'exp-1' }],
    ['an engine message with more', { importId: 'imp-1', extra: 1 }],
    ['an empty id', { importId: '' }],
    ['a notice without records', { Records: 'none' }],
    ['another S3 event', { Event: 's3:ObjectCreated:Put' }],
    ['not an object', 'imp-1'],
    ['a notice of a key that is not URL-encoded', notice('imports/%E0%A4%A')],
  ])('%s is none of them', (_name, body) => {
    expect(importMessage.safeParse(body).success).toBe(false);
  });
});

describe('the import an upload is for', () => {
  const CREATED = new Date('2026-06-01T00:00:00.000Z');
  const later = (minutes: number) => new Date(CREATED.getTime() + minutes * 60_000);

  const created = async () => {
    const repository = new MemoryJobRepository<ImportRecord>(importJob);
    const { importId, uploadExpiresAt } = await createImport(
      { repository, files: new MemoryFiles(), now: () => CREATED, newId: () => 'imp-1' },
      { organizationId: 'acme corp', format: 'jsonl' },
      'key-1',
    );
    const record = () => repository.records.get(importId) as ImportRecord;
    return { repository, importId, record, uploadExpiresAt };
  };

  test('a new import waits for its upload: not queued, not abandoned within the URL’s hour and a grace', async () => {
    const { record, uploadExpiresAt } = await created();
    expect(uploadExpiresAt).toBe('2026-06-01T01:00:00.000Z');
    expect(record().queuedAt).toBeUndefined();
    expect(importJob.view(record(), false).status).toBe('waiting_upload');
    expect(isAbandoned(record(), later(64))).toBe(false);
    expect(isAbandoned(record(), later(66))).toBe(true);
    // No file within the hour: the status answers failed, saying why, and the sweeper fails it so.
    expect(jobView(importJob, record(), later(66))).toMatchObject({ status: 'failed', error: NO_UPLOAD });
    expect(judgeJob(importJob, record(), later(96))).toEqual({ action: 'fail', guard: 'unqueued', reason: NO_UPLOAD });
  });

  test('its file’s arrival, as S3 notices it, answers the import and marks it queued', async () => {
    const { repository, importId, record } = await created();
    expect(record().fileKey).toMatch(/^imports\/acme%20corp\/imp-1-[0-9a-f]{32}$/);
    const parsed = importMessage.parse(notice(record().fileKey.replaceAll('%', '%25')));
    const [key] = 'uploadedKeys' in parsed ? parsed.uploadedKeys : [];
    expect(await importOfUpload(repository, key as string, later(3))).toBe(importId);
    expect(record().queuedAt).toBe(later(3).toISOString());
    expect(importJob.view(record(), false).status).toBe('pending');
    // A notice delivered again answers it again (its first delivery failed); it stays queued as it was.
    expect(await importOfUpload(repository, key as string, later(4))).toBe(importId);
    expect(record().queuedAt).toBe(later(3).toISOString());
  });

  test('a key that is no upload’s, or another file of the same import id, starts nothing', async () => {
    const { repository, record } = await created();
    const other = record().fileKey.replace(/-[0-9a-f]{32}$/, `-${'0'.repeat(32)}`);
    for (const key of [
      other,
      'imports/acme%20corp/imp-1',
      'exports/acme%20corp/imp-1-00000000000000000000000000000000',
      'imports/acme%20corp/imp-2-00000000000000000000000000000000',
      'imports/acme%20corp/__proto__-00000000000000000000000000000000',
      '',
    ]) {
      expect(await importOfUpload(repository, key, later(3))).toBeUndefined();
    }
    expect(record().queuedAt).toBeUndefined();
  });

  test('a file that arrives once its import has ended starts nothing', async () => {
    const { repository, record } = await created();
    record().status = 'failed';
    expect(await importOfUpload(repository, record().fileKey, later(3))).toBeUndefined();
    record().status = 'completed';
    expect(await importOfUpload(repository, record().fileKey, later(3))).toBeUndefined();
  });

  test('a file that arrives after the import was given up on (past its queueBy) starts nothing', async () => {
    const { repository, record } = await created();
    expect(await importOfUpload(repository, record().fileKey, later(66))).toBeUndefined();
    expect(record().queuedAt).toBeUndefined();
    expect(importJob.view(record(), isAbandoned(record(), later(66)))).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('No file was uploaded'),
    });
  });
});
