import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { stackName } from '#infra/service-app.js';
import { SYNTH_TIMEOUT_MS } from '../infra/synth.js';
import { assertionVerdicts } from './assertion-results.js';
import { buildIntegApp, INTEG_STAGE, INTEG_TEST_ID } from './service-integ.js';

// No AWS account here: the integration test app is synthesized only (`npm run integ` deploys
// it), and what it would assert is read from the cloud assembly.
// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation has no static type
type Json = any;

let outdir: string;
let manifest: Json;
let assertions: Json;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'integ-test-'));
  // No bundling: the function code is not what this looks at.
  buildIntegApp({ outdir, context: { 'aws:cdk:bundling-stacks': [] } }).app.synth();
  manifest = JSON.parse(readFileSync(join(outdir, 'integ.json'), 'utf8'));
  const testCase = manifest.testCases[`${INTEG_TEST_ID}/DefaultTest`];
  assertions = JSON.parse(readFileSync(join(outdir, `${testCase.assertionStackName}.template.json`), 'utf8'));
}, SYNTH_TIMEOUT_MS);
afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

const customResources = () =>
  Object.values(assertions.Resources as Record<string, Json>).filter((r) => String(r.Type).startsWith('Custom::'));
const httpCalls = () => customResources().filter((r) => String(r.Type).startsWith('Custom::DeployAssert@HttpCall'));
/** The request a call sends: its path, and the `data` of its body (tokens left as they are). */
const pathOf = (call: Json) => JSON.stringify(call.Properties.parameters.url).match(/v2\/[a-z/]+/)?.[0];

test('the test case deploys the service stack of the throw-away stage and destroys it after', () => {
  const testCase = manifest.testCases[`${INTEG_TEST_ID}/DefaultTest`];
  expect(testCase.stacks).toEqual([stackName(INTEG_STAGE)]);
  expect(testCase.stackUpdateWorkflow).toBe(false);
  const service = JSON.parse(readFileSync(join(outdir, `${stackName(INTEG_STAGE)}.template.json`), 'utf8'));
  // Unprotected: the tables go with the stack.
  for (const table of Object.values(service.Resources as Record<string, Json>).filter(
    (r) => r.Type === 'AWS::DynamoDB::Table',
  )) {
    expect(table.DeletionPolicy).toBe('Delete');
  }
});

test('it creates its own credential, then calls the API: refused, set, get, migrate, status, moved', () => {
  const [put] = customResources().filter((r) => r.Type === 'Custom::DeployAssert@SdkCallDynamoDBputItem');
  // The provider's parameters are JSON text.
  expect(JSON.parse(put?.Properties.parameters.Item).organizationIds).toEqual({ L: [{ S: 'integ' }] });
  expect(httpCalls().map(pathOf)).toEqual([
    'v2/notifications/config/get',
    'v2/notifications/config/set',
    'v2/notifications/config/get',
    'v2/organizations/documents/migrate',
    'v2/organizations/documents/migrate/status',
    'v2/notifications/config/get',
  ]);
  // Every HTTP call is checked against an expected answer.
  for (const call of httpCalls()) expect(call.Properties.expected).toBeDefined();
});

test('the status is asked again until the migration has completed, with the id migrate answered', () => {
  const [status] = httpCalls().filter((call) => pathOf(call) === 'v2/organizations/documents/migrate/status');
  expect(JSON.parse(status?.Properties.expected).$ObjectLike.body.result.data).toMatchObject({ status: 'completed' });
  // The waiter: a state machine that repeats the call.
  expect(status?.Properties.stateMachineArn).toBeDefined();
  expect(
    Object.values(assertions.Resources as Record<string, Json>).some(
      (r) => r.Type === 'AWS::StepFunctions::StateMachine',
    ),
  ).toBe(true);
  expect(JSON.stringify(status?.Properties.parameters.fetchOptions.body)).toContain(
    'apiCallResponse.body.result.data.migrationId',
  );
});

test('npm run integ reads each assertion verdict from the stack outputs', () => {
  expect(
    assertionVerdicts({
      [stackName(INTEG_STAGE)]: { ApiUrl: 'https://example.com/' },
      Assertions: {
        AssertionResultsHttpApiCallA: '{"status":"success"}',
        AssertionResultsHttpApiCallB: '{"status":"fail","message":"Expected 200 but received 401"}',
        AssertionResultsHttpApiCallC: 'garbage',
      },
    }),
  ).toEqual([
    { output: 'AssertionResultsHttpApiCallA', ok: true },
    { output: 'AssertionResultsHttpApiCallB', ok: false, message: 'Expected 200 but received 401' },
    { output: 'AssertionResultsHttpApiCallC', ok: false, message: 'not a verdict: garbage' },
  ]);
});
