import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { EVENT_SOURCE } from '#shared/events/events.js';
import { FILE_FOLDERS } from '#shared/files/keys.js';
import { MARSHALL_OPTIONS } from '#shared/platform/marshall-options.js';
import { WEBHOOK_EVENT_TYPES } from '#shared/webhooks/model.js';
import { type AwsCredential, newAwsCredential, readAwsCredential, writeAwsCredential } from './aws-credential.js';
import type { dataPaths } from './data-dir.js';
import { type EmbeddedDynamo, ensureTables, startEmbeddedDynamo } from './dynamo.js';
import { type LocalEventBridge, startLocalEventBridge } from './events/local-event-bridge.js';
import { type LocalS3, startLocalS3, uploadNotice } from './files/local-s3.js';
import { LOCAL_REGION } from './lambda-context.js';
import { namingPort } from './ports.js';
import { type LocalSqs, startLocalSqs } from './queue/local-sqs.js';
import type { LocalQueue } from './queue/queue.js';
import type { RuntimePorts } from './runtime-ports.js';
import { type LocalSecretsManager, startLocalSecretsManager } from './secrets/local-secrets-manager.js';

/** The bus the change publisher puts events on (EVENT_BUS_NAME), in the EventBridge twin. */
export const LOCAL_EVENT_BUS_NAME = 'notification-preferences-local';

/** A queue made after the stand-in that sends to it: set once the queues exist. */
export interface QueueTarget {
  queue?: LocalQueue;
}

export interface AwsStandInsOptions {
  inMemory: boolean;
  paths: ReturnType<typeof dataPaths>;
  ports: Omit<RuntimePorts, 'api'>;
  /** The first runtime's credential in this process, which wins over the data directory's. */
  credential: AwsCredential | undefined;
  eventsFileMaxBytes?: number | undefined;
  printEvents?: boolean | undefined;
  log: (line: string) => void;
}

export interface AwsStandIns {
  awsCredential: AwsCredential;
  embedded: EmbeddedDynamo;
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  sqs: LocalSqs;
  events: LocalEventBridge;
  secrets: LocalSecretsManager;
  files: LocalS3;
  /** Where the bus's rule sends the events endpoints subscribe to: the webhooks queue. */
  webhookTarget: QueueTarget;
  /** Where an upload to the imports folder is noticed, as the stack's bucket does: the import queue. */
  importTarget: QueueTarget;
}

/**
 * DynamoDB Local (its tables made) and the stand-ins of SQS, EventBridge, Secrets Manager and S3,
 * started in that order, each with its stop pushed on `cleanups`. The queues come afterwards
 * (their URLs need the SQS port); the targets tell the bus and the bucket where to send.
 */
export const startAwsStandIns = async (
  { inMemory, paths, ports, credential, eventsFileMaxBytes, printEvents, log }: AwsStandInsOptions,
  cleanups: (() => Promise<void>)[],
): Promise<AwsStandIns> => {
  // The data directory's credential, or a new one (the first of this process, if any, wins: the
  // functions keep it). Its access key picks DynamoDB Local's database, so a data directory
  // whose key changes has its tables moved to the new key's.
  const saved = inMemory ? undefined : await readAwsCredential(paths.awsCredential);
  const awsCredential = credential ?? saved ?? newAwsCredential();
  const embedded: EmbeddedDynamo = await startEmbeddedDynamo({
    ...(inMemory ? {} : { path: paths.dynamo }),
    port: ports.dynamo,
    credentials: awsCredential,
    formerKey: saved?.accessKeyId,
    beforeStart: async () => {
      if (!inMemory && saved?.accessKeyId !== awsCredential.accessKeyId) {
        await writeAwsCredential(paths.awsCredential, awsCredential);
      }
    },
  });
  cleanups.push(() => embedded.close());
  const dynamo = new DynamoDBClient({
    endpoint: embedded.endpoint,
    region: LOCAL_REGION,
    // The access key picks the database (local/dynamo.ts).
    credentials: embedded.credentials,
  });
  cleanups.push(async () => dynamo.destroy());
  const doc = DynamoDBDocumentClient.from(dynamo, { marshallOptions: MARSHALL_OPTIONS });
  await ensureTables(dynamo);

  const sqs: LocalSqs = await startLocalSqs({
    accessKeyId: awsCredential.accessKeyId,
    host: '127.0.0.1',
    port: ports.sqs,
    region: LOCAL_REGION,
    ...(inMemory ? {} : { persistFile: paths.queues }),
    log,
  }).catch(namingPort('sqs', '127.0.0.1', ports.sqs));
  cleanups.push(() => sqs.close());
  const webhookTarget: QueueTarget = {};
  const events: LocalEventBridge = await startLocalEventBridge({
    accessKeyId: awsCredential.accessKeyId,
    busName: LOCAL_EVENT_BUS_NAME,
    port: ports.events,
    ...(inMemory ? {} : { file: paths.events }),
    ...(eventsFileMaxBytes ? { maxFileBytes: eventsFileMaxBytes } : {}),
    ...(printEvents ? { print: log } : {}),
    rules: [
      {
        source: [EVENT_SOURCE],
        detailType: Object.values(WEBHOOK_EVENT_TYPES),
        target: async (event) => {
          webhookTarget.queue?.send({ body: JSON.stringify(event) });
          await webhookTarget.queue?.persisted();
        },
      },
    ],
    log,
  });
  cleanups.push(() => events.close());
  // The link keys, as the functions read them on AWS: from "Secrets Manager".
  const secrets: LocalSecretsManager = await startLocalSecretsManager({
    accessKeyId: awsCredential.accessKeyId,
    ...(inMemory ? {} : { keyFile: paths.linkKeys }),
    port: ports.secrets,
    log,
  });
  cleanups.push(() => secrets.close());
  // The files bucket, in the data directory (in memory: a temporary directory, removed on close).
  const importTarget: QueueTarget = {};
  const files: LocalS3 = await startLocalS3({
    credential: awsCredential,
    region: LOCAL_REGION,
    onObjectCreated: (key, size) => {
      if (key.startsWith(`${FILE_FOLDERS.imports}/`)) importTarget.queue?.send({ body: uploadNotice(key, size) });
    },
    ...(inMemory ? {} : { directory: paths.files }),
    port: ports.files,
  });
  cleanups.push(() => files.close());
  return { awsCredential, embedded, dynamo, doc, sqs, events, secrets, files, webhookTarget, importTarget };
};
