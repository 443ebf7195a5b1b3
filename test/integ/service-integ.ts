import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExpectedResult, type IApiCall, IntegTest, Match } from '@aws-cdk/integ-tests-alpha';
import { App, type AppProps, type CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import { stackName } from '#infra/service-app.js';
import { ServiceStack } from '#infra/stack.js';
import { parseServiceConfig } from '#infra/stage-settings.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { operationById } from '#tools/openapi/operations.js';

/**
 * The integration test on a real account (`npm run integ`, docs/operations.md): integ-runner
 * deploys a throw-away stage, runs the assertions below against its API (through the assertions
 * stack's custom resources, in order) and destroys both stacks. The stack is the one `cdk
 * deploy` builds; the policy checks (cdk-nag, cfn-guard) run on it in the unit tests.
 */
export const INTEG_STAGE = 'integ';
export const INTEG_ORGANIZATION = 'integ';
export const INTEG_TEST_ID = 'ServiceInteg';

/** How long the migration may take before the status assertion fails. */
const MIGRATION_TIMEOUT = Duration.minutes(5);

const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context;

export const buildIntegApp = (props: AppProps = {}) => {
  // cdk.json's context (feature flags) as `cdk deploy` passes it; the stage is ad hoc, with defaults.
  const app = new App({ ...props, context: { ...CDK_JSON_CONTEXT, ...props.context } });
  const config = parseServiceConfig({ ...CDK_JSON_CONTEXT, ...props.context, stage: INTEG_STAGE });
  const stack = new ServiceStack(app, stackName(INTEG_STAGE), {
    config,
    description: 'Notification preferences service (integration test, deleted after the run)',
  });
  const integ = new IntegTest(app, INTEG_TEST_ID, {
    testCases: [stack],
    // The stage is new on every run: no earlier snapshot to deploy first.
    stackUpdateWorkflow: false,
    diffAssets: false,
  });

  // A credential made for this run (its token is in the assertions' template: the stage exists
  // only while the test runs), written as the credentials command writes one.
  const apiKey = `ak_${randomBytes(12).toString('hex')}`;
  const token = `st_${randomBytes(32).toString('base64url')}`;
  const credentialsTable = (stack.node.findChild('CredentialsTableName') as CfnOutput).value;
  const putCredential = integ.assertions.awsApiCall('DynamoDB', 'putItem', {
    TableName: credentialsTable,
    Item: {
      apiKey: { S: apiKey },
      tokenHash: { S: createHash('sha256').update(token, 'utf8').digest('hex') },
      organizationIds: { L: [{ S: INTEG_ORGANIZATION }] },
      createdAt: { S: new Date().toISOString() },
      name: { S: 'integration test' },
    },
  });

  const call = (operationId: Parameters<typeof operationById>[0], data: unknown, authenticated = true): IApiCall =>
    integ.assertions.httpApiCall(`${stack.stage.url}${operationById(operationId).path.slice(1)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(authenticated ? { 'x-service-api-key': apiKey, 'x-service-auth-token': token } : {}),
      },
      body: Stack.of(stack).toJsonString({ data }),
    });
  const organizationId = INTEG_ORGANIZATION;

  const refused = call('getConfig', { organizationId, userId: 'alice' }, false).expect(
    ExpectedResult.objectLike({ status: 401, body: { error: { status: 'UNAUTHENTICATED' } } }),
  );
  const set = call('setConfig', {
    organizationId,
    userIds: ['alice', 'bob'],
    documentIds: ['doc-1'],
    config: { email: 'MINE', slack: 'NONE' },
  }).expect(
    ExpectedResult.objectLike({
      status: 200,
      body: { result: { status: 'success', data: { alice: { success: true }, bob: { success: true } } } },
    }),
  );
  const get = call('getConfig', { organizationId, userId: 'alice', documentIds: ['doc-1'] }).expect(
    ExpectedResult.objectLike({
      status: 200,
      body: {
        result: {
          data: Match.arrayWith([
            Match.objectLike({
              documentId: 'doc-1',
              config: { email: 'MINE', slack: 'NONE' },
              source: { email: 'document' },
            }),
          ]),
        },
      },
    }),
  );
  const migrate = call('migrateDocument', { organizationId, documentId: 'doc-1', newDocumentId: 'doc-2' }).expect(
    ExpectedResult.objectLike({ status: 200, body: { result: { status: 'success' } } }),
  );
  const status = call('getMigrationStatus', {
    organizationId,
    migrationId: migrate.getAttString('body.result.data.migrationId'),
  })
    .expect(
      ExpectedResult.objectLike({
        status: 200,
        body: { result: { data: { status: 'completed', moved: 2, skipped: 0, newDocumentId: 'doc-2' } } },
      }),
    )
    // Asked again until the migration has completed, or the time is up.
    .waitForAssertions({ totalTimeout: MIGRATION_TIMEOUT, interval: Duration.seconds(10) });
  const moved = call('getConfig', { organizationId, userId: 'bob', documentIds: ['doc-2'] }).expect(
    ExpectedResult.objectLike({
      status: 200,
      body: {
        result: { data: Match.arrayWith([Match.objectLike({ documentId: 'doc-2', config: { email: 'MINE' } })]) },
      },
    }),
  );
  putCredential.next(refused).next(set).next(get).next(migrate).next(status).next(moved);
  return { app, stack, integ };
};
