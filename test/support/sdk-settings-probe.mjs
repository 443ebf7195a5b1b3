// Prints, as JSON, every setting of service/lambda-sdk-settings.ts as a DynamoDB and an SQS client
// resolve them in this process's environment (test/infra/lambda-sdk-settings.test.ts runs it once
// per case: the SDK remembers some settings for the whole process). Nothing is sent: each call
// stops before it leaves.
import { DescribeLimitsCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';

/** The configured endpoint the probe sets: a client that ignores it calls the service's own. */
const CONFIGURED = 'configured.example';

/** Whether the client's calls ignore the configured endpoint (it reads that setting at each call). */
const endpointIgnored = async (client, command) => {
  const stop = new Error('stopped before sending');
  let host;
  client.middlewareStack.add(
    () => async (args) => {
      host = args.request.hostname;
      throw stop;
    },
    { step: 'finalizeRequest', name: 'stopBeforeSending' },
  );
  await client.send(command).catch((error) => {
    if (error !== stop) throw error;
  });
  return host !== CONFIGURED;
};

/** Each setting as the client resolves it: a config key (a provider is called), or a call's destination. */
const SETTINGS = {
  AWS_DEFAULTS_MODE: 'defaultsMode',
  AWS_RETRY_MODE: 'retryMode',
  AWS_USE_FIPS_ENDPOINT: 'useFipsEndpoint',
  AWS_USE_DUALSTACK_ENDPOINT: 'useDualstackEndpoint',
  AWS_ACCOUNT_ID_ENDPOINT_MODE: 'accountIdEndpointMode',
  AWS_AUTH_SCHEME_PREFERENCE: 'authSchemePreference',
  AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: endpointIgnored,
  AWS_DISABLE_CLOCK_SKEW_CORRECTION: 'disableClockSkewCorrection',
  AWS_SDK_UA_APP_ID: 'userAgentAppId',
};

const resolve = async (client, command) => {
  const values = {};
  for (const [setting, key] of Object.entries(SETTINGS)) {
    if (typeof key === 'function') values[setting] = await key(client, command);
    else if (key in client.config) {
      const value = client.config[key];
      values[setting] = typeof value === 'function' ? await value() : value;
    }
  }
  client.destroy();
  return values;
};

process.env.AWS_ENDPOINT_URL = `http://${CONFIGURED}`;
const result = {
  dynamodb: await resolve(new DynamoDBClient({ region: 'eu-west-1' }), new DescribeLimitsCommand({})),
  sqs: await resolve(new SQSClient({ region: 'eu-west-1' }), new ListQueuesCommand({})),
};
process.stdout.write(JSON.stringify(result));
