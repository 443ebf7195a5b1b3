import type { AwsCredential } from './aws-credential.js';
import { assertPortFree, type HeldPort, holdFreePort, isAddressInUse, PortInUseError } from './ports.js';

/**
 * The ports a local runtime listens on, and what a second runtime in the same process keeps of
 * the first. The handler modules build their clients and read their environment once, at import.
 * A second runtime in the same process therefore reuses the first one's ports and AWS credential,
 * so that those clients keep reaching it.
 */
export interface RuntimePorts {
  api: number;
  dynamo: number;
  sqs: number;
  events: number;
  secrets: number;
  files: number;
}

const first: { ports?: RuntimePorts; credential?: AwsCredential; inMemory: boolean } = { inMemory: false };

/** The first runtime's AWS credential, which the functions of this process keep signing with. */
export const firstCredential = (): AwsCredential | undefined => first.credential;

/** A persistent runtime cannot follow an in-memory one: its functions would keep the in-memory store's endpoint and credential. */
export const followsInMemoryRuntime = (): boolean => first.ports !== undefined && first.inMemory;

/** Called once a runtime's stand-ins listen; only the first call of the process counts. */
export const rememberFirstRuntime = (ports: RuntimePorts, credential: AwsCredential, inMemory: boolean): void => {
  if (!first.ports) first.inMemory = inMemory;
  first.credential ??= credential;
  first.ports ??= ports;
};

/**
 * A start failed on a port the first runtime used: between the two starts, another process's
 * outgoing connection can hold one of them for a while, so such a start tries again.
 */
export const isReusedPortTaken = (error: unknown): boolean =>
  first.ports !== undefined && (isAddressInUse(error) || error instanceof PortInUseError);

export interface PickedPorts extends RuntimePorts {
  /** The API's free port, held until the API listens on it (undefined when a port was given). */
  held: HeldPort | undefined;
}

/**
 * The ports of a start: the first runtime's, else the given ones, else free ones (0 lets the
 * stand-in pick). A taken API or SQS port fails here, before the JVM is launched (DynamoDB Local
 * checks its own).
 */
export const pickPorts = async (
  { host, port, dynamoPort, sqsPort }: { host: string; port: number; dynamoPort?: number; sqsPort?: number },
  cleanups: (() => Promise<void>)[],
): Promise<PickedPorts> => {
  // The API's port is known before the functions load: their links are built on its URL. A free
  // one is held until the API listens on it: the JVM starts meanwhile, and another process's
  // outgoing connection could take a port that was merely found free.
  const given = port || first.ports?.api;
  const held = given ? undefined : await holdFreePort(host);
  if (held) cleanups.push(() => held.release());
  const api = given || (held?.port as number);
  const dynamo = first.ports?.dynamo ?? dynamoPort ?? 0;
  const sqs = first.ports?.sqs ?? sqsPort ?? 0;
  if (!held) await assertPortFree('api', host, api);
  await assertPortFree('sqs', '127.0.0.1', sqs);
  // The other stand-ins' ports are nobody's business but the functions': free ones (the same for a second runtime).
  return {
    api,
    dynamo,
    sqs,
    events: first.ports?.events ?? 0,
    secrets: first.ports?.secrets ?? 0,
    files: first.ports?.files ?? 0,
    held,
  };
};
