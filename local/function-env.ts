import { TABLES } from '#service/tables.js';
import { ENV } from '#shared/platform/environment.js';
import { type AwsStandIns, LOCAL_EVENT_BUS_NAME } from './aws-stand-ins.js';
import { type AwsCall, recordCalls } from './call-recorder.js';
import { useInvokeStore } from './invoke-store.js';
import { LOCAL_FUNCTION_PREFIX, LOCAL_REGION } from './lambda-context.js';
import { hostPort } from './listen.js';
import type { ServiceQueues } from './service-queues.js';

/**
 * The functions' clients give a silent DynamoDB or SQS connection 1 s when deployed; DynamoDB
 * Local on a busy laptop takes longer (the 1,200 PartiQL batches of a large set queue up in one JVM), and
 * with one store and nothing to fail over to, each retry only adds to its load (5xx answers on a
 * slow machine; a write retried after its first attempt took effect also costs its batch again).
 * Locally they wait an API function's whole time; a route's deadline still ends a hung call in 503.
 */
export const LOCAL_DEPENDENCY_TIMEOUT_MS = 10_000;

/** The tables' local names, by their key in service/tables.ts. */
export const localTableNames = (): Record<keyof typeof TABLES, string> =>
  Object.fromEntries(Object.entries(TABLES).map(([key, t]) => [key, t.localName])) as Record<
    keyof typeof TABLES,
    string
  >;

export interface FunctionEnvOptions {
  host: string;
  apiPort: number;
  standIns: AwsStandIns;
  queues: ServiceQueues;
  /** Extra environment for the functions, over the rest. */
  env?: Record<string, string> | undefined;
  /** Told every AWS call a function makes (local/call-recorder.ts). */
  recordAwsCalls?: ((call: AwsCall) => void) | undefined;
}

/**
 * Sets what the stack sets on the functions, pointed at the local twins, in this process's
 * environment. Called before the handler modules load: they read it at import.
 */
export const setFunctionEnv = async (
  { host, apiPort, standIns, queues, env: extra, recordAwsCalls }: FunctionEnvOptions,
  cleanups: (() => Promise<void>)[],
): Promise<void> => {
  const { embedded, sqs, events, secrets, files } = standIns;
  const { maxReceiveCount } = queues;
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.values(TABLES).map((t) => [t.env, t.localName])),
    [ENV.migrationQueueUrl]: queues.queue.url,
    [ENV.migrationMaxReceiveCount]: String(maxReceiveCount),
    [ENV.erasureQueueUrl]: queues.erasureQueue.url,
    [ENV.erasureMaxReceiveCount]: String(maxReceiveCount),
    [ENV.webhookQueueUrl]: queues.webhookQueue.url,
    [ENV.exportQueueUrl]: queues.exportQueue.url,
    [ENV.exportMaxReceiveCount]: String(maxReceiveCount),
    [ENV.importQueueUrl]: queues.importQueue.url,
    [ENV.importMaxReceiveCount]: String(maxReceiveCount),
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: embedded.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: embedded.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: embedded.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: events.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ENDPOINT_URL_S3: files.endpoint,
    [ENV.filesBucket]: files.bucket,
    [ENV.eventBusName]: LOCAL_EVENT_BUS_NAME,
    // Links on the API's own URL, as a stage sets its domain: never the Host a request names.
    [ENV.linksBaseUrl]:
      process.env[ENV.linksBaseUrl] || `http://${hostPort(host === '0.0.0.0' ? '127.0.0.1' : host, apiPort)}`,
    [ENV.linkKeysSecret]: secrets.secretId,
    [ENV.dependencyTimeoutMs]: process.env[ENV.dependencyTimeoutMs] || String(LOCAL_DEPENDENCY_TIMEOUT_MS),
    // Webhooks reach receivers on this machine (http or https to a loopback host); never deployed.
    [ENV.webhooksAllowLoopback]: '1',
    // A policy set on a laptop applies to the next request, unless a developer asks for the cache.
    [ENV.policyCacheSeconds]: process.env[ENV.policyCacheSeconds] || '0',
    ...extra,
  };
  Object.assign(process.env, env);
  useInvokeStore();
  if (recordAwsCalls) {
    // The functions' shared clients, loaded after the environment is set: they read it on import.
    const clients = [
      (await import('#shared/platform/aws-clients.js')).documentClient,
      (await import('#shared/platform/sqs-client.js')).sqsClient,
      (await import('#shared/platform/events-client.js')).eventBridgeClient,
      (await import('#shared/platform/secrets-client.js')).secretsClient,
      (await import('#shared/platform/s3-client.js')).s3Client,
    ];
    const recording = recordCalls(clients, `${LOCAL_FUNCTION_PREFIX}-`, recordAwsCalls);
    cleanups.push(async () => recording.stop());
  }
  // A developer's real session (or profile) must not leak into the local twins' requests.
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
};
