import { request } from 'node:http';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { newAwsCredential } from '#local/aws-credential.js';
import { type LocalS3, startLocalS3 } from '#local/files/local-s3.js';

// The S3 stand-in (s3rver behind the twin's checks) through the real SDK v3 client and
// presigned URLs, and over raw HTTP for what an attacker on the loopback might send.
const credential = newAwsCredential();
let twin: LocalS3;
let client: S3Client;
const created: string[] = [];

beforeAll(async () => {
  twin = await startLocalS3({ credential, region: 'local', onObjectCreated: (key) => created.push(key) });
  client = new S3Client({
    endpoint: twin.endpoint,
    region: 'local',
    credentials: credential,
    forcePathStyle: true,
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await twin.close();
});

const presigned = (command: PutObjectCommand | GetObjectCommand) => getSignedUrl(client, command, { expiresIn: 3600 });

/** A request with a Host header of our choosing (fetch does not let one set it). */
const raw = (url: string, { method = 'GET', headers = {} }: { method?: string; headers?: Record<string, string> }) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

describe('the files bucket', () => {
  test('the SDK writes and reads an object; its arrival is told', async () => {
    await client.send(new PutObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/a', Body: 'one\ntwo\n' }));
    const got = await client.send(new GetObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/a' }));
    expect(await got.Body?.transformToString()).toBe('one\ntwo\n');
    expect(created).toContain('imports/o/a');
  });

  test('a presigned PUT uploads and a presigned GET downloads, with no other credential', async () => {
    const put = await presigned(new PutObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/b' }));
    expect((await fetch(put, { method: 'PUT', body: 'file body' })).status).toBe(200);
    const get = await presigned(new GetObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/b' }));
    const answer = await fetch(get);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('file body');
  });

  test('a presigned URL altered in its key, method or lifetime is refused', async () => {
    const get = await presigned(new GetObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/b' }));
    expect((await fetch(get.replace('imports/o/b', 'imports/o/a'))).status).toBe(403);
    expect((await fetch(get.replace('X-Amz-Expires=3600', 'X-Amz-Expires=7200'))).status).toBe(403);
    expect((await fetch(get, { method: 'PUT', body: 'overwritten' })).status).toBe(403);
  });

  test('an unsigned request, or one signed with another key, is refused', async () => {
    expect((await fetch(`${twin.endpoint}/${twin.bucket}/imports/o/b`)).status).toBe(403);
    const other = new S3Client({
      endpoint: twin.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      forcePathStyle: true,
      maxAttempts: 1,
    });
    await expect(other.send(new GetObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/b' }))).rejects.toThrow();
    other.destroy();
  });

  test('a foreign Host is refused before anything else', async () => {
    const get = await presigned(new GetObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/b' }));
    const answer = await raw(get, { headers: { host: `rebound.example:${new URL(twin.endpoint).port}` } });
    expect(answer.status).toBe(421);
  });

  test('an upload over 5 GiB is refused by its size, as S3 refuses it', async () => {
    const put = await presigned(new PutObjectCommand({ Bucket: twin.bucket, Key: 'imports/o/c' }));
    const answer = await raw(put, { method: 'PUT', headers: { 'content-length': String(5 * 1024 ** 3 + 1) } });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('EntityTooLarge');
  });
});
