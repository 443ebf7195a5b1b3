import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listening and closing, as every server of the twin does them (the API, and the SQS,
 * EventBridge and Secrets Manager stand-ins).
 */

/** Listens on `host` (loopback by default); resolves with the bound port, rejects on an error such as EADDRINUSE. */
export const listen = (server: Server, port: number, host = '127.0.0.1'): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

/** An address and port as a URL or Host header spells them (IPv6 in brackets). */
export const hostPort = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Stops accepting, closes idle connections, and cuts those still busy after a grace period. */
export const closeServer = async (server: Server, graceMs = 2_000): Promise<void> => {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(cut);
};
