import { existsSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  assertDynamoFilesFree,
  DataDirLockedError,
  dataPaths,
  readRunningServer,
  resolveDataDir,
} from '#local/data-dir.js';
import { ensureTables, startEmbeddedDynamo } from '#local/dynamo.js';
import { CommandError } from './output.js';

/** The local twin's credentials, which its DynamoDB and SQS accept. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Where a command finds the local store's services. */
export interface LocalStore {
  dynamoEndpoint: string;
  /** The running server's SQS twin; undefined when only the data directory's files are open. */
  sqsEndpoint: string | undefined;
  description: string;
  stop(): Promise<void>;
}

/**
 * The local store of a data directory (--data-dir, else DATA_DIR, else the default): while
 * `npm start` runs on it, that server holds the files, so its DynamoDB (and SQS) are used;
 * otherwise the files are opened with an embedded DynamoDB Local, tables created if missing.
 * A command that only reads or changes what is there (`create: false`) leaves a directory
 * without a store as it is, and says so: a mistyped DATA_DIR creates nothing.
 */
export const openLocalStore = async (
  dataDirOption: string | undefined,
  env: NodeJS.ProcessEnv,
  { create }: { create: boolean },
): Promise<LocalStore> => {
  const dataDir = resolveDataDir(dataDirOption ? { DATA_DIR: dataDirOption } : env);
  const { dynamo: path, dynamoFile } = dataPaths(dataDir);
  if (!create && !existsSync(dynamoFile)) {
    throw new CommandError(
      `no local store in ${dataDir} (npm start creates it there; --data-dir DIR or DATA_DIR names another)`,
    );
  }
  try {
    await assertDynamoFilesFree(path);
  } catch (error) {
    const running = error instanceof DataDirLockedError ? await readRunningServer(dataDir) : undefined;
    if (!running) throw error;
    return {
      dynamoEndpoint: running.dynamoEndpoint,
      sqsEndpoint: running.sqsEndpoint,
      description: `the running local server's store (${running.apiUrl}, ${dataDir})`,
      stop: async () => {},
    };
  }
  const embedded = await startEmbeddedDynamo({ path });
  const client = new DynamoDBClient({ endpoint: embedded.endpoint, region: 'local', credentials: LOCAL_CREDENTIALS });
  try {
    await ensureTables(client);
  } catch (error) {
    await embedded.close();
    throw error;
  } finally {
    client.destroy();
  }
  return {
    dynamoEndpoint: embedded.endpoint,
    sqsEndpoint: undefined,
    description: `the local store in ${dataDir}`,
    stop: () => embedded.close(),
  };
};

/** A client in the region given, else AWS_REGION, else the AWS profile's, as the AWS CLI finds it. */
export const regionalDynamoClient = async (
  given: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ client: DynamoDBClient; region: string } | undefined> => {
  const wanted = given ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const client = new DynamoDBClient(wanted ? { region: wanted } : {});
  const region = await client.config.region().catch(() => undefined);
  if (region) return { client, region };
  client.destroy();
  return undefined;
};
