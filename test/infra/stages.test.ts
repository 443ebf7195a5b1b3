import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Token } from 'aws-cdk-lib';
import { TABLES } from '#service/tables.js';
import {
  CDK_JSON_CONTEXT,
  describeViolations,
  only,
  type Resources,
  SHARED_SYNTH_TIMEOUT_MS,
  type Synthesized,
  sharedSynth,
} from './synth.js';

// `cdk synth -c stage=prod`: the settings committed in cdk.json, nothing else, as the run's shared
// synthesis of it has it (test/infra/synth.ts). The code is not bundled there (stack.test.ts
// covers bundling).
const committedProd = (CDK_JSON_CONTEXT.stages as Record<string, Record<string, unknown>>).prod as Record<
  string,
  unknown
>;
let prod: Synthesized;
let resources: Resources;
beforeAll(async () => {
  prod = await sharedSynth('prod');
  resources = prod.template.toJSON().Resources as Resources;
}, SHARED_SYNTH_TIMEOUT_MS);
afterAll(() => prod?.cleanup());

const ofType = (type: string) => Object.values(resources).filter((r) => r.Type === type);

describe('prod stage, as committed in cdk.json', () => {
  test('cdk-nag AwsSolutions passes', () => {
    expect(describeViolations(prod.nagViolations)).toEqual([]);
  });

  test('the stack has termination protection and is pinned to its account and region', () => {
    expect(prod.stack.terminationProtection).toBe(true);
    expect(prod.stack.account).toBe(committedProd.account);
    expect(prod.stack.region).toBe(committedProd.region);
  });

  test('tables are protected against deletion, kept on stack deletion, removed when the first create fails', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(Object.keys(TABLES).length);
    for (const table of tables) {
      expect(table.DeletionPolicy).toBe('RetainExceptOnCreate');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties.DeletionProtectionEnabled).toBe(true);
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    }
  });

  test('the link keys are kept likewise: losing them would break every link already sent', () => {
    const secret = only(ofType('AWS::SecretsManager::Secret'));
    expect(secret.DeletionPolicy).toBe('RetainExceptOnCreate');
    expect(secret.UpdateReplacePolicy).toBe('Retain');
  });

  test('log groups and the alarm key are kept likewise; logs with the default retention of 30 days', () => {
    const logGroups = ofType('AWS::Logs::LogGroup');
    expect(logGroups.length).toBeGreaterThanOrEqual(7);
    for (const group of [...logGroups, ...ofType('AWS::KMS::Key')]) {
      expect(group.DeletionPolicy).toBe('RetainExceptOnCreate');
      expect(group.UpdateReplacePolicy).toBe('Retain');
    }
    for (const group of logGroups) expect(group.Properties.RetentionInDays).toBe(30);
  });

  test('every alarm notifies the committed alarm address', () => {
    expect(ofType('AWS::CloudWatch::Alarm').length).toBeGreaterThan(0);
    const topic = only(Object.entries(resources).filter(([, r]) => r.Type === 'AWS::SNS::Topic'))[0];
    for (const alarm of ofType('AWS::CloudWatch::Alarm'))
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topic }]);
    expect(only(ofType('AWS::SNS::Subscription')).Properties).toMatchObject({
      Protocol: 'email',
      Endpoint: committedProd.alarmEmail,
    });
  });

  test('committed throttling; defaults for the rest: credential cache 60 s, notification defaults ALL/MINE/NONE, concurrency 5', () => {
    const stage = only(ofType('AWS::ApiGatewayV2::Stage'));
    expect(stage.Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: committedProd.throttleRate,
      ThrottlingBurstLimit: committedProd.throttleBurst,
    });
    // The queue consumers' mappings (migrations, erasures, webhooks, exports, imports); the stream mappings scale per shard.
    const queues = ofType('AWS::Lambda::EventSourceMapping').filter((m) => m.Properties.ScalingConfig);
    expect(queues.map((m) => m.Properties.ScalingConfig)).toEqual(Array(5).fill({ MaximumConcurrency: 5 }));
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

describe('an unprotected stage', () => {
  // cdk.json's `dev`, as the run's shared synthesis of it has it (test/infra/synth.ts).
  let dev: Synthesized;
  beforeAll(async () => {
    dev = await sharedSynth('dev');
  }, SHARED_SYNTH_TIMEOUT_MS);
  afterAll(() => dev?.cleanup());

  test('is removed whole on tear-down, deploys wherever the shell points, and has no termination protection', () => {
    const all = Object.values(dev.template.toJSON().Resources as Resources);
    for (const resource of all.filter((r) => /Table$|LogGroup$/.test(r.Type))) {
      expect(resource.DeletionPolicy).toBe('Delete');
    }
    expect(dev.stack.terminationProtection).toBe(false);
    expect(Token.isUnresolved(dev.stack.account)).toBe(true);
    expect(Token.isUnresolved(dev.stack.region)).toBe(true);
  });
});
