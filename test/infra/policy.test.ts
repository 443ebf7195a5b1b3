import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { App } from 'aws-cdk-lib';
import { CONTROL_TOWER } from '#infra/guard-rules.js';
import {
  CONTROL_TOWER_RULES_DIR,
  controlTowerRulesFor,
  type Json,
  POLICY_RULES_DIR,
  type Resources,
  SHARED_SYNTH_TIMEOUT_MS,
  type Synthesized,
  sharedSynth,
} from './synth.js';

// The cfn-guard plugin runs in every test synthesis (test/infra/synth.ts); here the report of
// the run's shared synthesis of cdk.json's `dev` stage is read (a stage without an alarm address,
// whose alarms have no action: one of the known exceptions), and each rule of infra/policy/ is
// shown to catch the promise it stands for.
let dev: Synthesized;
let report: Json;
beforeAll(async () => {
  dev = await sharedSynth('dev');
  report = JSON.parse(readFileSync(join(dev.outdir, 'validation-report.json'), 'utf8'));
}, SHARED_SYNTH_TIMEOUT_MS);
afterAll(() => dev?.cleanup());

const guardReport = () => report.pluginReports.find((r: Json) => r.pluginName === 'cdk-validator-cfnguard');

describe('cfn-guard: Control Tower rules and the rules of infra/policy/', () => {
  test('ran on the stack and passed', () => {
    expect(guardReport()).toMatchObject({ conclusion: 'success', violations: [] });
  });

  test("the Control Tower rules given to it are every rule that names one of the template's resource types", () => {
    const all = readdirSync(CONTROL_TOWER_RULES_DIR, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.guard'))
      .map((file) => join(CONTROL_TOWER_RULES_DIR, file));
    const types = new Set(Object.values(dev.template.toJSON().Resources as Resources).map((r) => r.Type));
    const naming = all.filter((file) => {
      const text = readFileSync(file, 'utf8');
      return [...types].some((type) => text.includes(`"${type}"`) || text.includes(`'${type}'`));
    });
    const given = controlTowerRulesFor(dev.stack.node.root as App);
    expect(given.sort()).toEqual(naming.sort());
    // The package's other rules are about services the stack does not use.
    expect(naming.length).toBeGreaterThan(10);
    expect(naming.length).toBeLessThan(all.length / 2);
  });

  test('a rules folder without rules is an error, not a check that passes', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-rules-'));
    try {
      expect(() => controlTowerRulesFor(dev.stack.node.root as App, empty)).toThrow(/No cfn-guard rules/);
      expect(() => controlTowerRulesFor(dev.stack.node.root as App, join(empty, 'gone'))).toThrow(/No cfn-guard rules/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('every exception is one of the known ones, acknowledged with a reason', () => {
    const suppressed: Json[] = guardReport().suppressedViolations;
    for (const s of suppressed) expect(s.reason.length).toBeGreaterThan(40);
    expect([...new Set(suppressed.map((s) => s.acknowledgedId))].sort()).toEqual(Object.values(CONTROL_TOWER).sort());
  });
});

describe('each rule of infra/policy/ fails a template that breaks its promise', () => {
  // The binary the plugin runs, called directly: the rules stay runnable without the CDK.
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('@cdklabs/cdk-validator-cfnguard/package.json'));
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';
  const guard = join(packageDir, 'bin', process.platform === 'darwin' ? 'macos' : 'ubuntu', arch, 'cfn-guard');

  const failedRules = (template: Json): string[] => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-'));
    try {
      const file = join(dir, 'template.json');
      writeFileSync(file, JSON.stringify(template));
      try {
        execFileSync(
          guard,
          [
            'validate',
            '--rules',
            POLICY_RULES_DIR,
            '--data',
            file,
            '--show-summary',
            'fail',
            '--output-format',
            'single-line-summary',
          ],
          {
            encoding: 'utf8',
          },
        );
        return [];
      } catch (error) {
        const output = (error as { stdout: string }).stdout;
        return [...output.matchAll(/^(\S+\.guard\/\w+)\s+FAIL$/gm)].map((m) => m[1] as string).sort();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  const broken = (change: (resources: Resources) => void): Json => {
    const template = structuredClone(dev.template.toJSON());
    change(template.Resources);
    return template;
  };
  const first = (resources: Resources, type: string) => {
    const found = Object.values(resources).find((r) => r.Type === type);
    if (!found) throw new Error(`no ${type}`);
    return found.Properties;
  };

  test('the synthesized template passes them all', () => {
    expect(failedRules(dev.template.toJSON())).toEqual([]);
  });

  test.each<[string, (r: Resources) => void, string]>([
    [
      'a table without PITR',
      (r) => {
        first(r, 'AWS::DynamoDB::Table').PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled = false;
      },
      'tables-pitr-and-encryption.guard/service_tables_pitr_and_sse',
    ],
    [
      'a table without SSE',
      (r) => {
        delete first(r, 'AWS::DynamoDB::Table').SSESpecification;
      },
      'tables-pitr-and-encryption.guard/service_tables_pitr_and_sse',
    ],
    [
      'an unencrypted queue',
      (r) => {
        delete first(r, 'AWS::SQS::Queue').SqsManagedSseEnabled;
      },
      'queues-tls-and-encryption.guard/service_queues_encrypted',
    ],
    [
      'a queue policy without the TLS deny',
      (r) => {
        const doc = first(r, 'AWS::SQS::QueuePolicy').PolicyDocument;
        doc.Statement = doc.Statement.filter((s: Json) => s.Effect !== 'Deny');
      },
      'queues-tls-and-encryption.guard/service_queues_tls_only',
    ],
    [
      'a queue without its policy',
      (r) => {
        const id = Object.keys(r).find((key) => r[key]?.Type === 'AWS::SQS::QueuePolicy');
        if (id) delete r[id];
      },
      'queues-tls-and-encryption.guard/service_queues_tls_only',
    ],
    [
      'a function without its log group',
      (r) => {
        delete first(r, 'AWS::Lambda::Function').LoggingConfig;
      },
      'functions-log-groups.guard/service_functions_own_log_group',
    ],
    [
      'a log group without retention',
      (r) => {
        delete first(r, 'AWS::Logs::LogGroup').RetentionInDays;
      },
      'functions-log-groups.guard/service_log_groups_retention',
    ],
    [
      'a wildcard action',
      (r) => {
        first(r, 'AWS::IAM::Policy').PolicyDocument.Statement[0].Action = ['sqs:SendMessage', 'dynamodb:*'];
      },
      'iam-no-wildcard-actions.guard/service_iam_no_wildcard_actions',
    ],
    [
      'NotAction',
      (r) => {
        const st = first(r, 'AWS::IAM::Policy').PolicyDocument.Statement[0];
        st.NotAction = st.Action;
        delete st.Action;
      },
      'iam-no-wildcard-actions.guard/service_iam_no_wildcard_actions',
    ],
  ])('%s', (_name, change, rule) => {
    expect(failedRules(broken(change))).toEqual([rule]);
  });
});
