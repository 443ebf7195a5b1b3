import { CloudFormationClient, paginateListStackResources } from '@aws-sdk/client-cloudformation';
import {
  GetFunctionConfigurationCommand,
  LambdaClient,
  UpdateFunctionConfigurationCommand,
} from '@aws-sdk/client-lambda';
import { ENV } from '#shared/platform/environment.js';

/**
 * Makes a revocation take effect at once on a deployed stage. A warm function trusts a credential
 * it looked up for `credentialCacheSeconds`; changing a function's configuration makes Lambda
 * start new execution environments for the next invocations, which look the credential up again.
 * So every function that authenticates (the ones whose environment names the credentials table)
 * gets one more variable, the time of the flush; nothing reads it. The next `cdk deploy` removes
 * it again (and starts new environments too). Requests already running finish on the old ones.
 */
export const FLUSH_VARIABLE = 'CREDENTIALS_FLUSHED_AT';

export interface FlushClients {
  cloudFormation: CloudFormationClient;
  lambda: LambdaClient;
}

export const regionalFlushClients = (region: string | undefined): FlushClients => ({
  cloudFormation: new CloudFormationClient(region ? { region } : {}),
  lambda: new LambdaClient(region ? { region } : {}),
});

/** The stack's functions that authenticate requests, refreshed; answers their names. */
export const flushCredentialCaches = async (
  { cloudFormation, lambda }: FlushClients,
  stackName: string,
  at: Date,
): Promise<string[]> => {
  const functions: string[] = [];
  for await (const page of paginateListStackResources({ client: cloudFormation }, { StackName: stackName })) {
    for (const resource of page.StackResourceSummaries ?? []) {
      if (resource.ResourceType === 'AWS::Lambda::Function' && resource.PhysicalResourceId) {
        functions.push(resource.PhysicalResourceId);
      }
    }
  }
  const flushed: string[] = [];
  for (const name of functions) {
    const { Environment } = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }));
    const variables = Environment?.Variables ?? {};
    if (!variables[ENV.credentialsTable]) continue;
    await lambda.send(
      new UpdateFunctionConfigurationCommand({
        FunctionName: name,
        Environment: { Variables: { ...variables, [FLUSH_VARIABLE]: at.toISOString() } },
      }),
    );
    flushed.push(name);
  }
  return flushed;
};
