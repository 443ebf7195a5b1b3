import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';

/**
 * Segment documents for the X-Ray daemon that Lambda runs beside every traced function: JSON over
 * UDP, one document per datagram (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-sendingdata.html).
 * Subsegments are sent on their own ("type": "subsegment"), each naming its parent: Lambda has
 * already opened the function's segment and passes its id in the trace header.
 */

/** `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1` */
export interface TraceHeader {
  root: string;
  parent: string;
  sampled: boolean;
}

export const parseTraceHeader = (value: string | undefined): TraceHeader | undefined => {
  if (!value) return undefined;
  const fields = new Map(value.split(';').map((field) => field.split('=') as [string, string]));
  const root = fields.get('Root');
  const parent = fields.get('Parent');
  if (!root || !parent) return undefined;
  return { root, parent, sampled: fields.get('Sampled') === '1' };
};

/** The header an AWS call carries, so that the service's own segment joins the trace under `parent`. */
export const traceHeaderOf = (root: string, parent: string): string => `Root=${root};Parent=${parent};Sampled=1`;

export const newSegmentId = (): string => randomBytes(8).toString('hex');

export interface Subsegment {
  name: string;
  id: string;
  trace_id: string;
  parent_id: string;
  /** Epoch seconds, with fractions. */
  start_time: number;
  end_time: number;
  type: 'subsegment';
  namespace?: 'aws';
  error?: boolean;
  throttle?: boolean;
  fault?: boolean;
  cause?: { exceptions: { message: string; type: string }[] };
  annotations?: Record<string, string | number | boolean>;
  aws?: Record<string, unknown>;
  http?: { response: { status: number } };
}

const HEADER = '{"format":"json","version":1}\n';

/** `AWS_XRAY_DAEMON_ADDRESS`: `host:port`, or `udp:host:port tcp:host:port`. */
export const daemonAddress = (value: string | undefined): { host: string; port: number } => {
  const udp =
    value
      ?.split(/\s+/)
      .find((part) => part.startsWith('udp:'))
      ?.slice(4) ??
    value ??
    '127.0.0.1:2000';
  const at = udp.lastIndexOf(':');
  return { host: udp.slice(0, at), port: Number(udp.slice(at + 1)) };
};

/** Sends documents to the daemon; the socket never keeps the process alive, and a send that fails is dropped. */
export class DaemonEmitter {
  private socket: Socket | undefined;

  constructor(private readonly address: { host: string; port: number }) {}

  send(document: Subsegment): void {
    if (!this.socket) {
      this.socket = createSocket('udp4');
      this.socket.unref();
      // A trace is worth less than the request it describes: errors are never thrown at it.
      this.socket.on('error', () => undefined);
    }
    this.socket.send(`${HEADER}${JSON.stringify(document)}`, this.address.port, this.address.host);
  }
}
