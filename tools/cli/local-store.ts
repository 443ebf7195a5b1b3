import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type AwsCredential,
  LOCAL_AWS_ENV,
  newAwsCredential,
  readAwsCredential,
  writeAwsCredential,
} from '#local/aws-credential.js';
import {
  assertDynamoFilesFree,
  DataDirLockedError,
  dataPaths,
  readRunningServer,
  resolveDataDir,
} from '#local/data-dir.js';
import { ensureTables, startEmbeddedDynamo } from '#local/dynamo.js';
import { holdsDatabase } from '#local/dynamo-files.js';
import { LOCAL_REGION } from '#local/lambda-context.js';
import { CommandError } from './output.js';

/**
 * The AWS credential that the twin's DynamoDB and stand-ins accept (local/aws-credential.ts):
 * LOCAL_AWS_ACCESS_KEY_ID and LOCAL_AWS_SECRET_ACCESS_KEY when set (an --in-memory twin's, from
 * its `export` line), else the one kept in the data directory. Without either, one that the
 * twin refuses: the command then says what it was told.
 */
export const twinCredential = async (dataDir: string, env: NodeJS.ProcessEnv): Promise<AwsCredential> => {
  const accessKeyId = env[LOCAL_AWS_ENV.accessKeyId];
  const secretAccessKey = env[LOCAL_AWS_ENV.secretAccessKey];
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey };
  return (
    (await readAwsCredential(dataPaths(dataDir).awsCredential)) ?? { accessKeyId: 'none', secretAccessKey: 'none' }
  );
};

/** Where a command finds the local store's services. */
export interface LocalStore {
  /** What the store's DynamoDB and SQS accept. */
  credentials: AwsCredential;
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
  const { dynamo: path, awsCredential } = dataPaths(dataDir);
  if (!create && !(await holdsDatabase(path))) {
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
      credentials: await twinCredential(dataDir, {}),
      dynamoEndpoint: running.dynamoEndpoint,
      sqsEndpoint: running.sqsEndpoint,
      description: `the running local server's store (${running.apiUrl}, ${dataDir})`,
      stop: async () => {},
    };
  }
  // The data directory's credential picks its database; a directory without one (an older
  // twin's) gets one, which its tables move to, as `npm start` would do.
  const saved = await readAwsCredential(awsCredential);
  const credentials = saved ?? newAwsCredential();
  if (!saved) await writeAwsCredential(awsCredential, credentials);
  const embedded = await startEmbeddedDynamo({ path, credentials });
  const client = new DynamoDBClient({ endpoint: embedded.endpoint, region: LOCAL_REGION, credentials });
  try {
    await ensureTables(client);
  } catch (error) {
    await embedded.close();
    throw error;
  } finally {
    client.destroy();
  }
  return {
    credentials,
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
