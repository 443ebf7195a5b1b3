import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TABLES } from '#shared/deployment/tables.js';
import { describeViolations, only, type Resources, SYNTH_TIMEOUT_MS, type Synthesized, synthService } from './synth.js';

// Production without an alarm email, and all other settings at their defaults. The code is
// not bundled here (stack.test.ts covers bundling), which keeps this file fast.
let prod: Synthesized;
let resources: Resources;
beforeAll(() => {
  prod = synthService({ stage: 'prod' }, { bundle: false });
  resources = prod.template.toJSON().Resources as Resources;
}, SYNTH_TIMEOUT_MS);
afterAll(() => prod?.cleanup());

const ofType = (type: string) => Object.values(resources).filter((r) => r.Type === type);

describe('prod stage', () => {
  test('cdk-nag AwsSolutions passes without an alarm topic as well', () => {
    expect(describeViolations(prod.nagViolations)).toEqual([]);
  });

  test('tables are retained and protected against deletion', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(Object.keys(TABLES).length);
    for (const table of tables) {
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties.DeletionProtectionEnabled).toBe(true);
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    }
  });

  test('log groups are retained, with the default retention of 30 days', () => {
    const logGroups = ofType('AWS::Logs::LogGroup');
    expect(logGroups).toHaveLength(7);
    for (const group of logGroups) {
      expect(group.DeletionPolicy).toBe('Retain');
      expect(group.Properties.RetentionInDays).toBe(30);
    }
  });

  test('without an alarm email: alarms exist, no topic, no actions', () => {
    expect(ofType('AWS::CloudWatch::Alarm').length).toBeGreaterThan(0);
    expect(ofType('AWS::SNS::Topic')).toHaveLength(0);
    expect(ofType('AWS::KMS::Key')).toHaveLength(0);
    for (const alarm of ofType('AWS::CloudWatch::Alarm')) expect(alarm.Properties.AlarmActions).toBeUndefined();
  });

  test('defaults: throttling 50/100, credential cache 60 s, notification defaults ALL/MINE/NONE, concurrency 5', () => {
    const stage = only(ofType('AWS::ApiGatewayV2::Stage'));
    expect(stage.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    const mapping = only(ofType('AWS::Lambda::EventSourceMapping'));
    expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 5 });
    const configGet = only(
      ofType('AWS::Lambda::Function').filter((fn) => fn.Properties.Description === 'POST /v2/notifications/config/get'),
    );
    expect(configGet.Properties.Environment.Variables).toMatchObject({
      CREDENTIAL_CACHE_TTL_SECONDS: '60',
      DEFAULT_INBOX: 'ALL',
      DEFAULT_EMAIL: 'MINE',
      DEFAULT_SLACK: 'NONE',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
  });

  test('the stack is named after the stage', () => {
    expect(prod.stack.stackName).toBe('NotificationPreferences-prod');
  });
});
