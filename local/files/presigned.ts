import type { IncomingMessage } from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import type { AwsCredential } from '../aws-credential.js';

/**
 * Checks a presigned request's signature, which the S3 stand-in (s3rver) does not: the request is
 * signed again, as it came (method, path, query, the headers it names as signed, its date and
 * lifetime), with the twin's credential, and the two signatures compared. A presigned URL
 * altered in any signed part (another key, another method, a longer life) is refused, as S3
 * refuses it.
 */
export const presignedChecker = (credential: AwsCredential, region: string) => {
  // The signer's settings (its hash, the credential, the region) as the SDK's S3 client resolves them.
  const presigner = new S3RequestPresigner({
    ...new S3Client({ region, credentials: credential, forcePathStyle: true }).config,
  });
  return (request: IncomingMessage): Promise<boolean> => signatureMatches(presigner, request);
};

const signatureMatches = async (presigner: S3RequestPresigner, request: IncomingMessage): Promise<boolean> => {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  const query = url.searchParams;
  const given = query.get('X-Amz-Signature');
  const date = query.get('X-Amz-Date');
  const expires = Number(query.get('X-Amz-Expires'));
  const signed = (query.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
  const dateMatch = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date ?? '');
  if (!given || !dateMatch || !Number.isInteger(expires) || !signed.includes('host')) return false;
  const [, y, mo, d, h, mi, s] = dateMatch;
  const signingDate = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = request.headers[name];
    if (value === undefined) return false;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // The parameters the signer adds itself are left out; the others are signed as they came.
  const own = new Set([
    'X-Amz-Algorithm',
    'X-Amz-Credential',
    'X-Amz-Date',
    'X-Amz-Expires',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
    'X-Amz-Security-Token',
  ]);
  const rest: Record<string, string> = {};
  for (const [name, value] of query) if (!own.has(name)) rest[name] = value;
  const [hostname, port] = (headers.host ?? '').split(':');
  const again = await presigner.presign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: hostname ?? '',
      ...(port ? { port: Number(port) } : {}),
      path: url.pathname,
      query: rest,
      headers,
    },
    { signingDate, expiresIn: expires, signableHeaders: new Set(signed), unhoistableHeaders: new Set(signed) },
  );
  return again.query?.['X-Amz-Signature'] === given;
};
