import { createServer } from 'node:net';

/**
 * The twin's three ports. Stable by default, so that a DynamoDB or SQS endpoint written into a
 * tool, a script or an `.env` keeps working across restarts: the embedded DynamoDB and the SQS
 * twin sit right after the API's port. An API on port 0 (a free port, as tests ask) gives free
 * ports to all three.
 */
export type TwinService = 'api' | 'dynamodb' | 'sqs';

export interface TwinPorts {
  api: number;
  dynamodb: number;
  sqs: number;
}

export const DYNAMODB_PORT_OFFSET = 1;
export const SQS_PORT_OFFSET = 2;

const MAX_PORT = 65_535;

const SERVICE_NAMES: Record<TwinService, string> = {
  api: 'the API',
  dynamodb: 'the embedded DynamoDB',
  sqs: 'the SQS twin',
};

/** API N gives DynamoDB N+1 and SQS N+2 unless given; API 0 gives 0 (free ports) to both. */
export const twinPorts = (api: number, given: { dynamodb?: number; sqs?: number } = {}): TwinPorts => {
  const derive = (offset: number) => {
    if (api === 0) return 0;
    const port = api + offset;
    if (port > MAX_PORT) throw new RangeError(`port ${port} (API port ${api} + ${offset}) is past ${MAX_PORT}`);
    return port;
  };
  const ports = {
    api,
    dynamodb: given.dynamodb ?? derive(DYNAMODB_PORT_OFFSET),
    sqs: given.sqs ?? derive(SQS_PORT_OFFSET),
  };
  // One would take the port and the other fail on it, as if something else held it.
  const services = Object.keys(ports) as TwinService[];
  for (const [i, one] of services.entries()) {
    const other = services.slice(i + 1).find((service) => ports[service] !== 0 && ports[service] === ports[one]);
    if (other) {
      throw new SamePortError(`${SERVICE_NAMES[one]} and ${SERVICE_NAMES[other]} are both given port ${ports[one]}`);
    }
  }
  return ports;
};

/** Two of the twin's services given one port: the options must change, not what holds a port. */
export class SamePortError extends Error {
  override readonly name = 'SamePortError';
}

export class PortInUseError extends Error {
  readonly code = 'EADDRINUSE';

  constructor(
    readonly service: TwinService,
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} on ${host}, for ${SERVICE_NAMES[service]}, is in use`);
    this.name = 'PortInUseError';
  }
}

export const isAddressInUse = (error: unknown): boolean =>
  (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';

/**
 * Resolves when `port` can be bound on `host` (every interface when undefined) right now; port 0
 * always can. Otherwise throws PortInUseError for `service`, so that a start fails before it
 * launches anything. `reportedHost` names the address users know when the check binds a wider one.
 */
export const assertPortFree = (
  service: TwinService,
  host: string | undefined,
  port: number,
  reportedHost = host ?? '127.0.0.1',
): Promise<void> =>
  port === 0
    ? Promise.resolve()
    : new Promise((resolve, reject) => {
        const probe = createServer();
        probe.once('error', (error) =>
          reject(isAddressInUse(error) ? new PortInUseError(service, reportedHost, port) : error),
        );
        probe.listen({ port, ...(host ? { host } : {}) }, () => probe.close(() => resolve()));
      });

/** A free port on `host`, held (listened on) until `release`, so that nobody takes it meanwhile. */
export interface HeldPort {
  port: number;
  /** Stops holding the port; calling it again does nothing. */
  release: () => Promise<void>;
}

export const holdFreePort = (host: string): Promise<HeldPort> =>
  new Promise((resolve, reject) => {
    const holder = createServer();
    holder.once('error', reject);
    holder.listen({ port: 0, host }, () => {
      const { port } = holder.address() as { port: number };
      let released: Promise<void> | undefined;
      resolve({
        port,
        release: () => {
          released ??= new Promise((done) => holder.close(() => done()));
          return released;
        },
      });
    });
  });

/** Rethrows an address-in-use error as PortInUseError naming `service`'s port. */
export const namingPort =
  (service: TwinService, host: string, port: number) =>
  (error: unknown): never => {
    throw isAddressInUse(error) && !(error instanceof PortInUseError) ? new PortInUseError(service, host, port) : error;
  };
