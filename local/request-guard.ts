import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackHost } from './loopback.js';

/**
 * What every listener of the twin checks before anything else. The `Host` a request names must
 * be the listener's own address: a web page whose host name was made to point at 127.0.0.1 (DNS
 * rebinding) is same-origin to its own requests, which CORS then does not stop, but its
 * requests name its host. And the AWS stand-ins want the twin's access key in the request's
 * signature (local/aws-credential.ts), which no other process on the machine has.
 */

/** `host[:port]` of a Host header; an IPv6 address in brackets. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/i;

/**
 * Whether a Host header names this listener: a loopback name (127.0.0.1, localhost, [::1]) or,
 * for a listener on another interface (npm start --host), that address (any IP address on a
 * wildcard one: no name, which a rebinding page would need), with the port it listens on.
 */
export const isOwnHost = (header: string | undefined, localPort: number, bindHost = '127.0.0.1'): boolean => {
  const match = HOST_HEADER.exec(header ?? '');
  if (!match) return false;
  const name = (match[1] as string).toLowerCase();
  if (Number(match[2] ?? 80) !== localPort) return false;
  if (isLoopbackHost(name)) return true;
  const bare = name.replace(/^\[|\]$/g, '');
  if (bindHost === '0.0.0.0' || bindHost === '::') return isIP(bare) !== 0;
  return bare === bindHost.toLowerCase();
};

/** The access key id of a SigV4 Authorization header (`Credential=AKID/date/region/service/aws4_request`). */
export const accessKeyIdOf = (authorization: string | undefined): string | undefined =>
  /^AWS4-HMAC-SHA256 .*\bCredential=([^/,\s]+)\//.exec(authorization ?? '')?.[1];

export const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

const refuse = (response: ServerResponse, status: number, body: unknown, contentType: string) => {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  response.end(text);
};

/** 421 Misdirected Request: this listener is not the host the request names. */
export const refuseForeignHost = (response: ServerResponse, contentType = 'application/json'): void =>
  refuse(
    response,
    421,
    { message: 'Misdirected Request: this server answers for its own loopback address only' },
    contentType,
  );

/**
 * An AWS stand-in's listener behind both checks. The access key id is compared, not the whole
 * signature: the key is as secret as the secret key here (random, in the 0600 data directory or
 * in memory), and a request that names it was made by a holder of the credential. A wrong or
 * missing key is answered as AWS answers an unknown key (403 UnrecognizedClientException).
 */
export const guardAwsListener = (
  listener: RequestListener,
  { accessKeyId, jsonVersion }: { accessKeyId: string; jsonVersion: string },
): RequestListener => {
  const contentType = `application/x-amz-json-${jsonVersion}`;
  return (request: IncomingMessage, response: ServerResponse) => {
    // The body is not read: the connection closes after the answer.
    if (!isOwnHost(request.headers.host, request.socket.localPort ?? 0)) {
      return refuseForeignHost(response, contentType);
    }
    const given = accessKeyIdOf(request.headers.authorization);
    if (given === undefined || !sameText(given, accessKeyId)) {
      return refuse(
        response,
        403,
        {
          __type: 'UnrecognizedClientException',
          message: 'The security token included in the request is invalid.',
        },
        contentType,
      );
    }
    listener(request, response);
  };
};
