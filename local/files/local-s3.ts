import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import AWSAccount from 's3rver/lib/models/account.js';
import { MAX_UPLOAD_BYTES } from '#shared/files/keys.js';
import type { AwsCredential } from '../aws-credential.js';
import { closeServer, listen } from '../listen.js';
import { accessKeyIdOf, isOwnHost, refuseForeignHost, sameText } from '../request-guard.js';
import { presignedChecker } from './presigned.js';

/**
 * The local twin's S3: s3rver (an S3-compatible server from the npm registry) on 127.0.0.1,
 * serving the files bucket to the functions through AWS_ENDPOINT_URL_S3 and the presigned URLs
 * they sign. Its files are in the data directory (`files/`); in memory, in a temporary
 * directory removed on close. s3rver checks no SigV4 signature, so it sits behind the twin's
 * own checks (docs/development.md, The local twin):
 * - the Host a request names must be this listener (as every listener of the twin);
 * - a request signed in its Authorization header must name the twin's access key, which only
 *   the functions and the tools have (as the other AWS stand-ins);
 * - a presigned request must carry a signature made with the twin's credential, checked in
 *   full (presigned.ts): the URL's key, method and lifetime cannot be changed;
 * - an unsigned request is refused (s3rver would serve it);
 * - an upload over 5 GiB is refused, as S3 refuses a PUT that large.
 */

/** The files bucket's name in the twin: what FILES_BUCKET_NAME names locally. */
export const LOCAL_FILES_BUCKET = 'notification-preferences-local-files';

export interface LocalS3Options {
  credential: AwsCredential;
  region: string;
  /** Where s3rver keeps its files; none: a temporary directory, removed on close. */
  directory?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Each object written (its key), as S3 would notify it. */
  onObjectCreated?: (key: string, size: number) => void;
}

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}

const xmlError = (response: ServerResponse, status: number, code: string, message: string) => {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  response.writeHead(status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
};

/**
 * What S3 sends a queue when a file is created (its event notification's shape, the parts the
 * import consumer reads): the key URL-encoded, a space as '+', '/' kept.
 */
export const uploadNotice = (key: string, size: number): string =>
  JSON.stringify({
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        eventName: 'ObjectCreated:Put',
        s3: {
          bucket: { name: LOCAL_FILES_BUCKET },
          object: { key: encodeURIComponent(key).replaceAll('%2F', '/').replaceAll('%20', '+'), size },
        },
      },
    ],
  });

export const startLocalS3 = async ({
  credential,
  region,
  directory,
  port = 0,
  onObjectCreated,
}: LocalS3Options): Promise<LocalS3> => {
  const temporary = directory ? undefined : await mkdtemp(join(tmpdir(), 'notification-preferences-files-'));
  // s3rver's own key (S3RVER) is withdrawn; the twin's is the only one it knows.
  AWSAccount.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(credential.accessKeyId, credential.secretAccessKey);
  const s3 = new S3rver({
    silent: true,
    directory: directory ?? (temporary as string),
    configureBuckets: [{ name: LOCAL_FILES_BUCKET }],
  });
  await s3.configureBuckets();
  s3.on('event', (event: { Records: { eventName: string; s3: { object: { key: string; size: number } } }[] }) => {
    for (const record of event.Records) {
      if (record.eventName.startsWith('ObjectCreated:')) {
        onObjectCreated?.(decodeURIComponent(record.s3.object.key), record.s3.object.size);
      }
    }
  });
  const serve = s3.callback();
  const presignedOk = presignedChecker(credential, region);
  const guarded = (request: IncomingMessage, response: ServerResponse) => {
    if (!isOwnHost(request.headers.host, request.socket.localPort ?? 0)) {
      return refuseForeignHost(response, 'application/xml');
    }
    if (request.method === 'PUT' && Number(request.headers['content-length'] ?? 0) > MAX_UPLOAD_BYTES) {
      return xmlError(response, 400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    }
    const query = new URL(request.url ?? '/', 'http://stand-in').searchParams;
    const denied = () => xmlError(response, 403, 'AccessDenied', 'Access Denied');
    if (request.headers.authorization !== undefined) {
      const given = accessKeyIdOf(request.headers.authorization);
      if (given === undefined || !sameText(given, credential.accessKeyId)) return denied();
      return serve(request, response);
    }
    if (query.has('X-Amz-Signature')) {
      presignedOk(request).then(
        (ok) => (ok ? serve(request, response) : denied()),
        () => denied(),
      );
      return;
    }
    return denied();
  };
  const server: Server = createServer(guarded);
  const boundPort = await listen(server, port);
  return {
    endpoint: `http://127.0.0.1:${boundPort}`,
    bucket: LOCAL_FILES_BUCKET,
    close: async () => {
      await closeServer(server);
      AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(credential.accessKeyId);
      if (temporary) await rm(temporary, { recursive: true, force: true });
    },
  };
};
