import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { hostOf } from './address.js';

/** A 2xx within this long is a delivery; the answer is read within it too. */
export const SEND_TIMEOUT_MS = 15_000;
/** At most this much of an answer is read: nothing of it is kept, it only lets the connection be reused. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface SendTarget {
  url: URL;
  /** The checked address to connect to (address.ts): never what a second resolution might say. */
  address: string;
  family: number;
}

export interface SendResult {
  /** null: no answer (timeout, connection refused or reset, TLS failure). */
  statusCode: number | null;
  durationMs: number;
}

export type Sender = (target: SendTarget, headers: Record<string, string>, body: string) => Promise<SendResult>;

// Connections are reused between deliveries to the same address, name and port.
const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 50 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }),
};

/**
 * POSTs `body` to the checked address, with the URL's host in `Host` and, over TLS, in SNI (the
 * certificate must match the name). A redirect is an answer like any other (never followed); the
 * answer is read up to MAX_ANSWER_BYTES, then the connection is dropped; everything, answer
 * included, within `timeoutMs`.
 */
export const sendTo = (
  { url, address, family }: SendTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = SEND_TIMEOUT_MS,
): Promise<SendResult> =>
  new Promise((resolve) => {
    const started = performance.now();
    const secure = url.protocol === 'https:';
    const host = hostOf(url);
    let statusCode: number | null = null;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ statusCode, durationMs: Math.round(performance.now() - started) });
    };
    const request = (secure ? httpsRequest : httpRequest)(
      {
        host: address,
        family,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? agents.https : agents.http,
        ...(secure && isIP(host) === 0 ? { servername: host } : {}),
      },
      (response) => {
        statusCode = response.statusCode ?? null;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) {
            response.destroy();
            done();
          }
        });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    // A status that came in time counts even if the rest of the answer does not.
    const timer = setTimeout(() => {
      request.destroy();
      done();
    }, timeoutMs);
    request.on('error', done);
    request.end(body);
  });
