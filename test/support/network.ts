import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * This machine's addresses other than loopback (link-local ones need a scope: left out). A
 * connection to one of them from here reaches a server as it would from the network: a server
 * bound to 127.0.0.1 only does not have it.
 */
export const nonLoopbackAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flat()
    .filter((address) => address && !address.internal && !address.address.startsWith('fe80:'))
    .map((address) => (address as { address: string }).address);

export interface ConnectionOutcome {
  /** How the attempt ended: refused, closed by the server, reset, or no answer within the wait. */
  ended: 'refused' | 'closed' | 'reset' | 'silent' | 'error';
  /** Every byte the server sent. */
  received: string;
}

/**
 * Opens a TCP connection to host:port, sends `request` once connected, and reports how it ended
 * and what came back. `waitMs` bounds the wait for a server that never answers (a firewall that
 * drops): that ends as `silent`, not as a failure of the caller.
 */
export const tryConnection = (
  host: string,
  port: number,
  request: string,
  waitMs = 10_000,
): Promise<ConnectionOutcome> =>
  new Promise((resolve) => {
    let received = '';
    const socket = connect({ host, port });
    const finish = (ended: ConnectionOutcome['ended']) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ended, received });
    };
    const timer = setTimeout(() => finish('silent'), waitMs);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('end', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ECONNREFUSED' ? 'refused' : error.code === 'ECONNRESET' ? 'reset' : 'error'),
    );
  });
