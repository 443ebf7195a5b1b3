import { CloudFormationClient, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import {
  GetFunctionConfigurationCommand,
  LambdaClient,
  UpdateFunctionConfigurationCommand,
} from '@aws-sdk/client-lambda';
import { expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { ENV } from '#shared/platform/environment.js';
import { runCredentialsCommand } from '#tools/credentials/command.js';
import { FLUSH_VARIABLE, flushCredentialCaches } from '#tools/credentials/flush-functions.js';

// `revoke --now` on a deployed stage: every function that authenticates gets a new environment,
// so no warm instance keeps trusting the revoked credential for the rest of its cache time.

test('every function that authenticates, and only those, is refreshed with its variables kept', async () => {
  const cloudFormation = mockClient(CloudFormationClient);
  const lambda = mockClient(LambdaClient);
  cloudFormation.on(ListStackResourcesCommand).resolves({
    StackResourceSummaries: [
      {
        ResourceType: 'AWS::Lambda::Function',
        PhysicalResourceId: 'set-config-fn',
        LogicalResourceId: 'a',
        ResourceStatus: 'UPDATE_COMPLETE',
        LastUpdatedTimestamp: new Date(),
      },
      {
        ResourceType: 'AWS::Lambda::Function',
        PhysicalResourceId: 'consumer-fn',
        LogicalResourceId: 'b',
        ResourceStatus: 'UPDATE_COMPLETE',
        LastUpdatedTimestamp: new Date(),
      },
      {
        ResourceType: 'AWS::DynamoDB::Table',
        PhysicalResourceId: 'config-table',
        LogicalResourceId: 'c',
        ResourceStatus: 'UPDATE_COMPLETE',
        LastUpdatedTimestamp: new Date(),
      },
    ],
  });
  lambda.on(GetFunctionConfigurationCommand, { FunctionName: 'set-config-fn' }).resolves({
    Environment: { Variables: { [ENV.credentialsTable]: 'creds', [ENV.configTable]: 'config' } },
  });
  lambda.on(GetFunctionConfigurationCommand, { FunctionName: 'consumer-fn' }).resolves({
    Environment: { Variables: { [ENV.configTable]: 'config' } },
  });
  lambda.on(UpdateFunctionConfigurationCommand).resolves({});
  const at = new Date('2026-11-25T12:00:00.000Z');

  const flushed = await flushCredentialCaches(
    {
      cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
      lambda: new LambdaClient({ region: 'eu-west-1' }),
    },
    'NotificationPreferences-prod',
    at,
  );

  expect(flushed).toEqual(['set-config-fn']);
  expect(lambda.commandCalls(UpdateFunctionConfigurationCommand).map((call) => call.args[0].input)).toEqual([
    {
      FunctionName: 'set-config-fn',
      Environment: {
        Variables: { [ENV.credentialsTable]: 'creds', [ENV.configTable]: 'config', [FLUSH_VARIABLE]: at.toISOString() },
      },
    },
  ]);
  cloudFormation.restore();
  lambda.restore();
});

test('--now needs a deployed stage and its stack; --stack alone is refused', async () => {
  const run = async (args: string[]) => {
    const out: string[] = [];
    const code = await runCredentialsCommand(
      args,
      { stdout: (line) => out.push(line), stderr: (line) => out.push(line) },
      {
        flush: async () => {
          throw new Error('not reached');
        },
      },
    );
    return { code, out: out.join('\n') };
  };
  expect(await run(['revoke', '--api-key', 'ak_1', '--now'])).toEqual({
    code: 2,
    out: expect.stringMatching(/--now needs --stack NAME and --table/),
  });
  expect(await run(['revoke', '--api-key', 'ak_1', '--now', '--stack', 'S'])).toEqual({
    code: 2,
    out: expect.stringMatching(/--now needs/),
  });
  expect(await run(['revoke', '--api-key', 'ak_1', '--stack', 'S', '--table', 'T'])).toEqual({
    code: 2,
    out: expect.stringMatching(/--stack goes with --now/),
  });
});
