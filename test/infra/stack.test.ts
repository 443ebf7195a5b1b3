import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { App, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import { ServiceFunction } from '#infra/constructs/service-function.js';
import { CONTROL_TOWER, guardRule } from '#infra/guard-rules.js';
import { ACCESS_LOG_FIELDS } from '#infra/http-api.js';
import { LAMBDA_BUNDLE_ALIASES } from '#service/bundle-aliases.js';
import {
  CHANGE_PUBLISHER_BATCH_SIZE,
  CHANGE_PUBLISHER_FUNCTION,
  CHANGE_PUBLISHER_MAX_RETRY_ATTEMPTS,
  ERASURE_CONSUMER_FUNCTION,
  ERASURE_MAX_RECEIVE_COUNT,
  EXPORT_CONSUMER_FUNCTION,
  type FunctionSpec,
  IMPORT_CONSUMER_FUNCTION,
  MIGRATION_CONSUMER_FUNCTION,
  MIGRATION_MAX_RECEIVE_COUNT,
  MIGRATION_SWEEPER_FUNCTION,
  memoryOf,
  NOT_FOUND_FUNCTION,
  timeoutSecondsOf,
  WEBHOOK_BATCH_SIZE,
  WEBHOOK_DISPATCHER_FUNCTION,
  WEBHOOK_MAX_RECEIVE_COUNT,
} from '#service/functions.js';
import { LAMBDA_SDK_SETTINGS } from '#service/lambda-sdk-settings.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { functionSpecOf, PUBLIC_ROUTES, publicFunctionSpecOf, ROUTES } from '#service/routes.js';
import { TABLES } from '#service/tables.js';
import { FILE_FOLDERS } from '#shared/files/keys.js';
import { ENV } from '#shared/platform/environment.js';
import { WEBHOOK_EVENT_TYPES } from '#shared/webhooks/model.js';
import {
  describeViolations,
  type Json,
  only,
  type Resources,
  resourceById,
  SHARED_SYNTH_TIMEOUT_MS,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
  sharedSynth,
} from './synth.js';

// The run's one synthesis with real bundling (esbuild is the slow part), made once for the run
// by the stack project's global setup: test/infra/synth.ts, `sharedSynth`.
let s: Synthesized;
let resources: Resources;
beforeAll(async () => {
  s = await sharedSynth('test');
  resources = s.template.toJSON().Resources as Resources;
}, SHARED_SYNTH_TIMEOUT_MS);
afterAll(() => s?.cleanup());

type FunctionKey = keyof Synthesized['stack']['functions'];
const FUNCTION_KEYS: FunctionKey[] = [
  ...ROUTES.map((o) => o.operationId),
  ...PUBLIC_ROUTES.map((route) => route.id),
  'NotFound',
  'MigrationConsumer',
  'MigrationSweeper',
  'ErasureConsumer',
  'ExportConsumer',
  'ImportConsumer',
  'ChangePublisher',
  'WebhookDispatcher',
];

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const fnId = (key: FunctionKey) => s.logicalId(s.stack.functions[key].function);
const res = (id: string) => resourceById(resources, id);
const fnProps = (key: FunctionKey): Json => res(fnId(key)).Properties;
const secretId = () => only(ofType('AWS::SecretsManager::Secret'))[0];
const tableId = (name: keyof typeof TABLES) =>
  only(Object.keys(resources).filter((id) => id.startsWith(TABLES[name].id)));
type QueueId =
  | 'MigrationQueue'
  | 'MigrationDeadLetterQueue'
  | 'ErasureQueue'
  | 'ErasureDeadLetterQueue'
  | 'WebhookQueue'
  | 'WebhookDeadLetterQueue'
  | 'ExportQueue'
  | 'ImportQueue'
  | 'ChangePublisherFailureQueue';
const queueId = (name: QueueId) =>
  only(
    ofType('AWS::SQS::Queue')
      .map(([id]) => id)
      .filter((id) => id.startsWith(name) && !(name === 'MigrationQueue' && id.includes('Dead'))),
  );

/** A resource reference as its logical id ('<id>/index/<name>' for an index), or '*' for a wildcard. */
const refId = (value: Json): string => {
  if (value === '*') return '*';
  const joined = value?.['Fn::Join'];
  if (joined?.[0] === '')
    return (joined[1] as Json[]).map((part) => (typeof part === 'string' ? part : refId(part))).join('');
  return value?.Ref ?? value?.['Fn::GetAtt']?.[0] ?? JSON.stringify(value);
};
const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every Allow statement attached to a function's role. */
const roleStatements = (key: FunctionKey): Statement[] => {
  const roleId = fnProps(key).Role['Fn::GetAtt'][0] as string;
  const role = res(roleId).Properties;
  expect(role.ManagedPolicyArns).toBeUndefined();
  expect(role.Policies).toBeUndefined();
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as unknown[]).some((r) => refId(r) === roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
};

/** Data permissions (everything but logs and X-Ray) as resource logical id -> sorted actions. */
const dataAccess = (key: FunctionKey): Record<string, string[]> => {
  const access: Record<string, string[]> = {};
  for (const st of roleStatements(key)) {
    expect(st.Effect).toBe('Allow');
    const actions = asArray(st.Action);
    if (actions.every((a) => a.startsWith('logs:') || a.startsWith('xray:'))) continue;
    for (const resource of asArray(st.Resource)) {
      const id = refId(resource);
      access[id] = [...new Set([...(access[id] ?? []), ...actions])].sort();
    }
  }
  return access;
};

describe('cdk-nag AwsSolutions', () => {
  test('no unacknowledged error or warning', () => {
    expect(describeViolations(s.nagViolations)).toEqual([]);
  });

  test('every acknowledgement names a rule, gives a reason, and sits on the narrowest resource', () => {
    const found: { path: string; id: string; reason: string }[] = [];
    const visit = (c: IConstruct) => {
      for (const entry of c.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
          found.push({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason });
        }
      }
      c.node.children.forEach(visit);
    };
    visit(s.stack.node.root);
    expect(found.length).toBeGreaterThan(0);
    const routes = /^NotificationPreferences-test\/HttpApi\/(DefaultRoute|ANY--[\w{}+-]+)$/;
    const logGroups = /^NotificationPreferences-test\/(\w+Function\/LogGroup|ApiAccessLogs)$/;
    const where: Record<string, RegExp> = {
      'AwsSolutions-IAM5[Resource::*]': /^NotificationPreferences-test\/\w+Function\/Role\/DefaultPolicy$/,
      // The CDK's own function that sets the files bucket's notification at deployment.
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
        /^NotificationPreferences-test\/BucketNotificationsHandler\w+$/,
      'AwsSolutions-APIG4': routes,
      [CONTROL_TOWER.routeAuthorization]: routes,
      [CONTROL_TOWER.lambdaPermissionSource]: routes,
      [CONTROL_TOWER.logRetentionYear]: logGroups,
      [CONTROL_TOWER.logKmsKey]: logGroups,
      [CONTROL_TOWER.lambdaVpc]:
        /^NotificationPreferences-test\/(\w+Function\/Function|BucketNotificationsHandler\w+)$/,
      [CONTROL_TOWER.queueDeadLetter]:
        /^NotificationPreferences-test\/(MigrationDeadLetterQueue|ErasureDeadLetterQueue|WebhookDeadLetterQueue|ExportDeadLetterQueue|ImportDeadLetterQueue|ChangePublisherFailureQueue)$/,
      'AwsSolutions-SQS3': /^NotificationPreferences-test\/ChangePublisherFailureQueue$/,
      // Rotated by the operators, not by Secrets Manager (docs/operations.md, Link keys).
      'AwsSolutions-SMG4': /^NotificationPreferences-test\/LinkKeys$/,
      // The files bucket (docs/operations.md, Files bucket).
      ...Object.fromEntries(
        [
          'AwsSolutions-S1',
          guardRule('s3_bucket_logging_enabled_check'),
          guardRule('s3_bucket_default_encryption_kms_check'),
          guardRule('s3_bucket_versioning_enabled_check'),
          guardRule('s3_bucket_object_lock_enabled_check'),
          guardRule('s3_event_notifications_enabled_check'),
        ].map((id) => [id, /^NotificationPreferences-test\/FilesBucket$/]),
      ),
      // A folder of the files bucket, for the functions that sign its URLs or write its files.
      ...Object.fromEntries(
        Object.values(FILE_FOLDERS).map((folder) => [
          `AwsSolutions-IAM5[Resource::<${s.logicalId(s.stack.files.bucket)}.Arn>/${folder}/*]`,
          /^NotificationPreferences-test\/\w+Function\/Role\/DefaultPolicy$/,
        ]),
      ),
    };
    for (const { path, id, reason } of found) {
      expect(reason.length).toBeGreaterThan(40);
      expect({ id, path }).toEqual({ id, path: expect.stringMatching(where[id] ?? /^unexpected acknowledgement$/) });
    }
  });

  test('the only "*" resources are the X-Ray statement and the stream consumer\'s ListStreams, as acknowledged', () => {
    const publisherRole: string = fnProps('ChangePublisher').Role['Fn::GetAtt'][0];
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      const ofPublisher = (policy.Properties.Roles as unknown[]).some((r) => refId(r) === publisherRole);
      for (const st of (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement) {
        if (asArray(st.Resource).includes('*')) {
          expect(asArray(st.Action).sort()).toEqual([
            ...(ofPublisher ? ['dynamodb:ListStreams'] : []),
            'xray:PutTelemetryRecords',
            'xray:PutTraceSegments',
          ]);
        }
        for (const action of asArray(st.Action)) expect(action).not.toContain('*');
      }
    }
  });
});

describe('functions', () => {
  test('one per route, the NOT_FOUND catch-all, the consumers, the sweeper and the publisher, all with the shared defaults', () => {
    // Ours, and the CDK's own function that sets the files bucket's notification at deployment.
    const ours = ofType('AWS::Lambda::Function').filter(([id]) => !id.startsWith('BucketNotificationsHandler'));
    expect(ours).toHaveLength(ROUTES.length + PUBLIC_ROUTES.length + 8);
    for (const key of FUNCTION_KEYS) {
      const props = fnProps(key);
      expect(props).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
      expect(props.Environment.Variables).toMatchObject({
        ...LAMBDA_SDK_SETTINGS,
        // Node's own source-map support: logged stacks point at the TypeScript.
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'notification-preferences',
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        POWERTOOLS_METRICS_NAMESPACE: s.stack.stackName,
      });
      // Its own log group, with the configured retention.
      const logGroup = res(refId(props.LoggingConfig.LogGroup));
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays).toBe(14);
    }
    // The largest set needs up to the HTTP API's 30 s integration limit; the others do not.
    // Every function's settings are its spec's, the one the local twin runs with too.
    const specs = [
      ...ROUTES.map((operation) => [operation.operationId, functionSpecOf(operation)] as const),
      ...PUBLIC_ROUTES.map((route) => [route.id, publicFunctionSpecOf(route)] as const),
      ['NotFound', NOT_FOUND_FUNCTION] as const,
      ['MigrationConsumer', MIGRATION_CONSUMER_FUNCTION as FunctionSpec] as const,
      ['MigrationSweeper', MIGRATION_SWEEPER_FUNCTION as FunctionSpec] as const,
    ];
    for (const [key, spec] of specs) {
      expect({ key, timeout: fnProps(key).Timeout, memory: fnProps(key).MemorySize }).toEqual({
        key,
        timeout: timeoutSecondsOf(spec),
        memory: memoryOf(spec),
      });
    }
    expect(fnProps('setConfig').Timeout).toBe(29);
    expect(fnProps('getConfig').Timeout).toBe(10);
    expect(fnProps('resetConfig').Timeout).toBe(29);
    expect(fnProps('MigrationConsumer').Timeout).toBe(MIGRATION_CONSUMER_FUNCTION.timeoutSeconds);
    // 512 MB everywhere but the migration and export consumers and config/set and config/reset, which
    // get one full vCPU for their CPU-bound work (a job's pages, a request's 5,000 writes).
    const memory: Partial<Record<FunctionKey, number>> = {
      MigrationConsumer: 1769,
      ExportConsumer: 1769,
      ImportConsumer: 1769,
      setConfig: 1769,
      resetConfig: 1769,
    };
    for (const key of FUNCTION_KEYS) {
      expect({ key, memory: fnProps(key).MemorySize }).toEqual({ key, memory: memory[key] ?? 512 });
    }
  });

  const assetDir = (key: FunctionKey) =>
    join(s.outdir, `asset.${(fnProps(key).Code.S3Key as string).replace(/\.zip$/, '')}`);

  test('bundles are minified ESM with the createRequire banner and a source map', () => {
    for (const key of ['getConfig', 'NotFound'] as const) {
      const code = readFileSync(join(assetDir(key), 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire } from 'node:module';const require = createRequire(")).toBe(true);
      expect(existsSync(join(assetDir(key), 'index.mjs.map'))).toBe(true);
      expect(code).toMatch(/^\/\/# sourceMappingURL=index\.mjs\.map\s*$/m);
      // Minified: long lines (only multi-line string literals break them).
      expect(code.length / code.split('\n').length).toBeGreaterThan(1000);
    }
  });

  test("the pages' words are bundled as UTF-8 text, not as \\u escapes", () => {
    const code = readFileSync(join(assetDir('preferencePage'), 'index.mjs'), 'utf8');
    // Arabic and Japanese from the pages' catalogs, as written; no escape of either script.
    expect(code).toMatch(/[\u0600-\u06ff]{3}/);
    expect(code).toMatch(/[\u3040-\u30ff]{3}/);
    expect(code).not.toMatch(/\\u06[0-9a-f]{2}|\\u30[4-9a-f][0-9a-f]/i);
  });

  test("node starts as AWS ships the runtime: no layer, no exec wrapper (the slot is the operator's)", () => {
    expect(ofType('AWS::Lambda::LayerVersion')).toEqual([]);
    for (const key of FUNCTION_KEYS) {
      const props = fnProps(key);
      expect({ key, layers: props.Layers, wrapper: props.Environment.Variables.AWS_LAMBDA_EXEC_WRAPPER }).toEqual({
        key,
        layers: undefined,
        wrapper: undefined,
      });
    }
  });

  // Run in a fresh Node from the cloud assembly, where no node_modules can be found: any
  // dependency left out of the bundle (the AWS SDK included) fails the import. No AWS
  // credentials in the environment, no home folder of the machine's: nothing to find elsewhere.
  const ANSWER = 'ANSWER ';
  const runBundle = (key: FunctionKey, event: object, logLevel = 'SILENT', nodeOptions?: string) => {
    const script = `const { handler } = await import(${JSON.stringify(join(assetDir(key), 'index.mjs'))});
      const answer = await handler(${JSON.stringify(event)}, {});
      process.stdout.write(${JSON.stringify(`\n${ANSWER}`)} + JSON.stringify(answer));`;
    const { stdout, stderr, status } = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: s.outdir,
      env: {
        PATH: process.env.PATH,
        HOME: s.outdir,
        AWS_REGION: 'eu-west-1',
        AWS_EC2_METADATA_DISABLED: 'true',
        POWERTOOLS_LOG_LEVEL: logLevel,
        [ENV.configTable]: 'config',
        [ENV.credentialsTable]: 'credentials',
        [ENV.limitsTable]: 'limits',
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      },
      encoding: 'utf8',
    });
    if (status !== 0) throw new Error(`${key} bundle exited ${status}: ${stderr}`);
    const answer = JSON.parse(stdout.slice(stdout.lastIndexOf(ANSWER) + ANSWER.length)) as {
      statusCode: number;
      body: string;
    };
    return { answer, log: stdout + stderr };
  };
  const invokeBundle = (key: FunctionKey, event: object) => runBundle(key, event).answer;

  test(
    'asset hashes do not depend on the output folder (cdk synth -o elsewhere)',
    () => {
      // One function built as every function is (ServiceFunction), synthesized into two folders
      // at other depths: source map paths relative to the output folder would change its bundle,
      // and so its hash, as they would every function's.
      const codeKeyIn = (outdir: string) => {
        const app = new App({ outdir });
        const stack = new Stack(app, 'HashCheck');
        new ServiceFunction(stack, 'NotFound', {
          spec: NOT_FOUND_FUNCTION,
          environment: {},
          logRetention: RetentionDays.ONE_WEEK,
          removalPolicy: RemovalPolicy.DESTROY,
        });
        const template = app.synth().getStackByName(stack.stackName).template as { Resources: Resources };
        return only(Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function')).Properties.Code
          .S3Key as string;
      };
      const near = mkdtempSync(join(tmpdir(), 'cdk-test-near-'));
      const elsewhereRoot = mkdtempSync(join(tmpdir(), 'cdk-test-elsewhere-'));
      const elsewhere = join(elsewhereRoot, 'a', 'b');
      mkdirSync(elsewhere, { recursive: true });
      try {
        expect(codeKeyIn(elsewhere)).toBe(codeKeyIn(near));
        const map = JSON.parse(readFileSync(join(assetDir('NotFound'), 'index.mjs.map'), 'utf8'));
        expect(map.sources).toContain('functions/not-found.ts');
      } finally {
        for (const dir of [near, elsewhereRoot]) rmSync(dir, { recursive: true, force: true });
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  test('the bundles load and answer on their own: SDK and middleware are inside', () => {
    const notFound = invokeBundle('NotFound', { rawPath: '/nope', requestContext: { http: { method: 'POST' } } });
    expect(notFound.statusCode).toBe(404);
    expect(JSON.parse(notFound.body).error.status).toBe('NOT_FOUND');
    // No credential headers: refused before any AWS call.
    const unauthenticated = invokeBundle('getConfig', {
      rawPath: '/v2/notifications/config/get',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: {} }),
      requestContext: { http: { method: 'POST' }, requestId: 'r1' },
    });
    expect(unauthenticated.statusCode).toBe(401);
    expect(JSON.parse(unauthenticated.body).error.status).toBe('UNAUTHENTICATED');
  });

  test('every bundle takes AWS credentials from the environment only: the SDK default chain is left out', () => {
    for (const key of FUNCTION_KEYS) {
      const map = JSON.parse(readFileSync(join(assetDir(key), 'index.mjs.map'), 'utf8')) as { sources: string[] };
      const code = readFileSync(join(assetDir(key), 'index.mjs'), 'utf8');
      // NotFound makes no AWS call and bundles no client at all.
      const expected = key === 'NotFound' ? [] : [LAMBDA_BUNDLE_ALIASES['@aws-sdk/credential-provider-node']];
      expect({ key, provider: map.sources.filter((source) => source.endsWith('lambda-credentials.ts')) }).toEqual({
        key,
        provider: expected,
      });
      // The chain's own messages (its SSO link, its last word): neither is bundled.
      const chain = ['defaultProvider::fromSSO', 'Could not load credentials from any providers'];
      expect({ key, chain: chain.filter((text) => code.includes(text)) }).toEqual({ key, chain: [] });
    }
  });

  test('without credentials in its environment a bundle fails its call at once, naming the cause', () => {
    // Lambda always sets them; a missing one must not send the SDK looking elsewhere (files,
    // instance metadata) but fail the request and say why in the log.
    const { answer, log } = runBundle(
      'getConfig',
      {
        rawPath: '/v2/notifications/config/get',
        headers: { 'content-type': 'application/json', 'x-service-api-key': 'k', 'x-service-auth-token': 't' },
        body: JSON.stringify({ data: { organizationId: 'acme', userIds: ['alice'] } }),
        requestContext: { http: { method: 'POST' }, requestId: 'r2' },
      },
      'ERROR',
    );
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body).error.status).toBe('INTERNAL');
    expect(log).toContain('Unable to find environment variable credentials');
  });

  test("with the function's NODE_OPTIONS a logged stack points at the sources, not at the bundle", () => {
    const event = {
      rawPath: '/v2/notifications/config/get',
      headers: { 'content-type': 'application/json', 'x-service-api-key': 'k', 'x-service-auth-token': 't' },
      body: JSON.stringify({ data: { organizationId: 'acme', userIds: ['alice'] } }),
      requestContext: { http: { method: 'POST' }, requestId: 'r3' },
    };
    // Each frame's file, as the logged stack (a JSON string) writes it: `(path:line:column)`.
    const frames = (log: string) =>
      [...log.matchAll(/\(((?:file:\/\/)?\/[^\s"()\\]+):\d+:\d+\)/g)].map((m) => m[1] as string);
    const nodeOptions = fnProps('getConfig').Environment.Variables.NODE_OPTIONS;
    const mapped = frames(runBundle('getConfig', event, 'ERROR', nodeOptions).log);
    expect(mapped.filter((file) => file.endsWith('/index.mjs'))).toEqual([]);
    expect(mapped.filter((file) => file.endsWith('/shared/auth/authenticator.ts')).length).toBeGreaterThan(0);
    // Without it, the same stack names the bundle: the variable is what maps it.
    const unmapped = frames(runBundle('getConfig', event, 'ERROR').log);
    expect(unmapped.length).toBeGreaterThan(0);
    expect(unmapped.filter((file) => !file.endsWith('/index.mjs'))).toEqual([]);
  });

  test('no function sets a variable Lambda reserves (the deployment would fail on it)', () => {
    // https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime
    const reserved = [
      '_HANDLER',
      '_X_AMZN_TRACE_ID',
      'AWS_DEFAULT_REGION',
      'AWS_REGION',
      'AWS_EXECUTION_ENV',
      'AWS_LAMBDA_FUNCTION_NAME',
      'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
      'AWS_LAMBDA_FUNCTION_VERSION',
      'AWS_LAMBDA_INITIALIZATION_TYPE',
      'AWS_LAMBDA_LOG_GROUP_NAME',
      'AWS_LAMBDA_LOG_STREAM_NAME',
      'AWS_ACCESS_KEY',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_LAMBDA_RUNTIME_API',
      'LAMBDA_TASK_ROOT',
      'LAMBDA_RUNTIME_DIR',
      'TZ',
    ];
    for (const key of FUNCTION_KEYS) {
      const names = Object.keys(fnProps(key).Environment.Variables);
      expect({ key, reserved: names.filter((name) => reserved.includes(name)) }).toEqual({ key, reserved: [] });
    }
  });

  test('environment: exactly the variables each function reads, with the configured values', () => {
    const variables = (key: FunctionKey) => {
      const { POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL, POWERTOOLS_METRICS_NAMESPACE, ...rest } = fnProps(key)
        .Environment.Variables as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(rest)
          // Read by the SDK and by node (checked above).
          .filter(([k]) => !(k in LAMBDA_SDK_SETTINGS) && k !== 'NODE_OPTIONS')
          .map(([k, v]) => [k, typeof v === 'string' ? v : refId(v)]),
      );
    };
    const http = {
      [ENV.credentialsTable]: tableId('credentials'),
      [ENV.credentialCacheSeconds]: '42',
      [ENV.limitsTable]: tableId('limits'),
      [ENV.rateLimitPerSecond]: '9',
      [ENV.rateLimitBurst]: '27',
    };
    expect(variables('setConfig')).toEqual({
      ...http,
      [ENV.configTable]: tableId('config'),
      [ENV.policyCacheSeconds]: '7',
    });
    expect(variables('getConfig')).toEqual({
      ...http,
      [ENV.configTable]: tableId('config'),
      [ENV.policyCacheSeconds]: '7',
      [ENV.defaultInbox]: 'NONE',
      [ENV.defaultEmail]: 'ALL',
      [ENV.defaultSlack]: 'NONE',
    });
    expect(variables('resolveConfig')).toEqual(variables('getConfig'));
    expect(variables('resetConfig')).toEqual({ ...http, [ENV.configTable]: tableId('config') });
    expect(variables('migrateDocument')).toEqual({
      ...http,
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.migrationQueueUrl]: queueId('MigrationQueue'),
    });
    expect(variables('getMigrationStatus')).toEqual({ ...http, [ENV.migrationsTable]: tableId('migrations') });
    expect(variables('NotFound')).toEqual({});
    expect(variables('MigrationConsumer')).toEqual({
      [ENV.configTable]: tableId('config'),
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.migrationQueueUrl]: queueId('MigrationQueue'),
      [ENV.migrationMaxReceiveCount]: String(MIGRATION_MAX_RECEIVE_COUNT),
    });
    // The stall limit is left to its default (MIGRATION_STALL_LIMIT_SECONDS is for the local twin).
    // It sweeps erasures and exports too, re-queued on their own queues.
    expect(variables('MigrationSweeper')).toEqual({
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.migrationQueueUrl]: queueId('MigrationQueue'),
      [ENV.erasureQueueUrl]: queueId('ErasureQueue'),
      [ENV.exportQueueUrl]: queueId('ExportQueue'),
      [ENV.importQueueUrl]: queueId('ImportQueue'),
    });
    // Exports: the start queues, the status signs a download, the consumer reads entries and writes the file.
    expect(variables('createExport')).toEqual({
      ...http,
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.exportQueueUrl]: queueId('ExportQueue'),
    });
    expect(variables('getExportStatus')).toEqual({
      ...http,
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.filesBucket]: s.logicalId(s.stack.files.bucket),
    });
    expect(variables('ExportConsumer')).toEqual({
      [ENV.configTable]: tableId('config'),
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.exportQueueUrl]: queueId('ExportQueue'),
      [ENV.exportMaxReceiveCount]: '5',
      [ENV.filesBucket]: s.logicalId(s.stack.files.bucket),
    });
    // The history: its table, and the link keys' secret, from which the cursors' key is derived.
    expect(variables('getConfigHistory')).toEqual({
      ...http,
      [ENV.historyTable]: tableId('history'),
      [ENV.linkKeysSecret]: secretId(),
    });
    expect(variables('eraseUser')).toEqual({
      ...http,
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.erasureQueueUrl]: queueId('ErasureQueue'),
    });
    expect(variables('getErasureStatus')).toEqual({ ...http, [ENV.migrationsTable]: tableId('migrations') });
    expect(variables('ErasureConsumer')).toEqual({
      [ENV.configTable]: tableId('config'),
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.historyTable]: tableId('history'),
      [ENV.erasureQueueUrl]: queueId('ErasureQueue'),
      [ENV.erasureMaxReceiveCount]: String(ERASURE_MAX_RECEIVE_COUNT),
      [ENV.linkKeysSecret]: secretId(),
    });
    // The links: the keys' secret (its ARN), and where the links point (the configured base URL).
    expect(variables('createLinks')).toEqual({
      ...http,
      [ENV.linkKeysSecret]: secretId(),
      [ENV.linksBaseUrl]: 'https://links.example.com/prefs',
    });
    expect(variables('revokeLinks')).toEqual({
      ...http,
      [ENV.configTable]: tableId('config'),
      [ENV.linkKeysSecret]: secretId(),
    });
    // The pages: no credential, no rate-limit bucket.
    const page = {
      [ENV.configTable]: tableId('config'),
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.linkKeysSecret]: secretId(),
    };
    expect(variables('unsubscribe')).toEqual({ ...page, [ENV.linkEvidenceClient]: 'true' });
    expect(variables('preferencePage')).toEqual({
      ...page,
      [ENV.historyTable]: tableId('history'),
      [ENV.linkEvidenceClient]: 'true',
      [ENV.defaultInbox]: 'NONE',
      [ENV.defaultEmail]: 'ALL',
      [ENV.defaultSlack]: 'NONE',
    });
    // The stream tables' names tell the publisher which stream a record comes from.
    expect(variables('ChangePublisher')).toEqual({
      [ENV.historyTable]: tableId('history'),
      [ENV.configTable]: tableId('config'),
      [ENV.migrationsTable]: tableId('migrations'),
      [ENV.eventBusName]: only(ofType('AWS::Events::EventBus'))[0],
      [ENV.historyRetentionDays]: '365',
    });
  });
});

describe('least-privilege IAM', () => {
  const consume = [
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
    'sqs:ReceiveMessage',
  ];

  test('each function holds exactly the table and queue actions it uses', () => {
    // Every route authenticates and takes its permits from the shared rate-limit bucket.
    const credentials = {
      [tableId('credentials')]: ['dynamodb:GetItem'],
      [tableId('limits')]: ['dynamodb:UpdateItem'],
    };
    // The policy item is read for its locks (set, a GetItem) and as a layer (get, resolve: one key
    // of their batched read); set writes entry by entry (a conditional UpdateItem each), and a
    // consent's text once (a conditional PutItem).
    expect(dataAccess('setConfig')).toEqual({
      ...credentials,
      [tableId('config')]: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    });
    expect(dataAccess('getConfig')).toEqual({
      ...credentials,
      [tableId('config')]: ['dynamodb:BatchGetItem'],
    });
    expect(dataAccess('resolveConfig')).toEqual({
      ...credentials,
      [tableId('config')]: ['dynamodb:BatchGetItem'],
    });
    expect(dataAccess('resetConfig')).toEqual({
      ...credentials,
      // Entry by entry: an update, and the delete of an emptied organization-level entry; a consent's text.
      [tableId('config')]: ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    });
    expect(dataAccess('migrateDocument')).toEqual({
      ...credentials,
      [tableId('migrations')]: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      [queueId('MigrationQueue')]: ['sqs:SendMessage'],
    });
    expect(dataAccess('getMigrationStatus')).toEqual({ ...credentials, [tableId('migrations')]: ['dynamodb:GetItem'] });
    expect(dataAccess('NotFound')).toEqual({});
    expect(dataAccess('MigrationConsumer')).toEqual({
      // UpdateItem and PartiQLUpdate: it stamps a source entry with the migration's attribution
      // before deleting it; DeleteItem and PartiQLDelete: the deletes (in PartiQL batches, and one
      // by one what a batch leaves).
      [tableId('config')]: [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:PartiQLDelete',
        'dynamodb:PartiQLUpdate',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      [tableId('migrations')]: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      [queueId('MigrationQueue')]: [...consume, 'sqs:SendMessage'].sort(),
    });
    // The links: the keys' secret, read only; creating links touches no table.
    const keys = { [secretId()]: ['secretsmanager:GetSecretValue'] };
    expect(dataAccess('createLinks')).toEqual({ ...credentials, ...keys });
    expect(dataAccess('revokeLinks')).toEqual({
      ...credentials,
      ...keys,
      [tableId('config')]: ['dynamodb:UpdateItem'],
    });
    // The pages: the link's state in one batched read of both tables, and the writes of a set or reset.
    expect(dataAccess('unsubscribe')).toEqual({
      ...keys,
      [tableId('config')]: ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      [tableId('migrations')]: ['dynamodb:BatchGetItem'],
    });
    // The preference page also reads the user's export whole ("Download my data").
    expect(dataAccess('preferencePage')).toEqual({
      ...keys,
      [tableId('config')]: ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      [tableId('migrations')]: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'],
      [tableId('history')]: ['dynamodb:Query'],
      [`${tableId('config')}/index/byUser`]: ['dynamodb:Query'],
    });
    // The export reads only; it seals its cursors with a key derived from the link keys.
    expect(dataAccess('exportUser')).toEqual({
      ...credentials,
      ...keys,
      [tableId('config')]: ['dynamodb:BatchGetItem'],
      [tableId('migrations')]: ['dynamodb:GetItem'],
      [tableId('history')]: ['dynamodb:Query'],
      [`${tableId('config')}/index/byUser`]: ['dynamodb:Query'],
    });
    expect(dataAccess('ErasureConsumer')[secretId()]).toEqual(['secretsmanager:GetSecretValue']);
    // config/history seals its cursors with a key derived from them.
    expect(dataAccess('getConfigHistory')[secretId()]).toEqual(['secretsmanager:GetSecretValue']);
    // Webhooks: new secrets are sealed, and sent ones opened, with a key derived from them.
    for (const key of ['setWebhooks', 'rotateWebhookSecret'] as const) {
      expect(dataAccess(key)).toEqual({
        ...credentials,
        ...keys,
        [tableId('config')]:
          key === 'setWebhooks'
            ? ['dynamodb:GetItem', 'dynamodb:PutItem']
            : ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      });
    }
    expect(dataAccess('getWebhooks')).toEqual({ ...credentials, [tableId('config')]: ['dynamodb:GetItem'] });
    expect(dataAccess('getWebhookDeliveries')).toEqual({ ...credentials, [tableId('history')]: ['dynamodb:Query'] });
    expect(dataAccess('WebhookDispatcher')).toEqual({
      ...keys,
      [tableId('config')]: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      [tableId('history')]: ['dynamodb:PutItem'],
      [queueId('WebhookQueue')]: [...consume, 'sqs:SendMessage'].sort(),
    });
    // No other function reads the keys.
    const readers = [
      'createLinks',
      'revokeLinks',
      'unsubscribe',
      'preferencePage',
      'ErasureConsumer',
      'getConfigHistory',
      'setWebhooks',
      'rotateWebhookSecret',
      'WebhookDispatcher',
      'exportUser',
    ];
    for (const key of FUNCTION_KEYS) {
      if (!readers.includes(key)) {
        expect({ key, keys: dataAccess(key)[secretId()] }).toEqual({ key, keys: undefined });
      }
    }
    // The active migrations and erasures through their index only: no table read, no scan, no config.
    expect(dataAccess('MigrationSweeper')).toEqual({
      [tableId('migrations')]: ['dynamodb:DeleteItem', 'dynamodb:UpdateItem'],
      [`${tableId('migrations')}/index/activeByUpdatedAt`]: ['dynamodb:Query'],
      [queueId('MigrationQueue')]: ['sqs:SendMessage'],
      [queueId('ErasureQueue')]: ['sqs:SendMessage'],
      [queueId('ExportQueue')]: ['sqs:SendMessage'],
      [queueId('ImportQueue')]: ['sqs:SendMessage'],
    });
  });

  test('no function reaches an index its spec does not name', () => {
    const specs: [FunctionKey, FunctionSpec][] = [
      ...ROUTES.map((operation) => [operation.operationId, functionSpecOf(operation)] as [FunctionKey, FunctionSpec]),
      ...PUBLIC_ROUTES.map((route) => [route.id, publicFunctionSpecOf(route)] as [FunctionKey, FunctionSpec]),
      ['NotFound', NOT_FOUND_FUNCTION],
      ['MigrationConsumer', MIGRATION_CONSUMER_FUNCTION],
      ['MigrationSweeper', MIGRATION_SWEEPER_FUNCTION],
      ['ErasureConsumer', ERASURE_CONSUMER_FUNCTION],
      ['ExportConsumer', EXPORT_CONSUMER_FUNCTION],
      ['ImportConsumer', IMPORT_CONSUMER_FUNCTION],
      ['ChangePublisher', CHANGE_PUBLISHER_FUNCTION],
      ['WebhookDispatcher', WEBHOOK_DISPATCHER_FUNCTION],
    ];
    const named = specs.flatMap(([key, spec]) =>
      Object.entries(spec.indexes ?? {}).flatMap(([table, indexes]) =>
        (indexes ?? []).map((index) => `${key} ${tableId(table as keyof typeof TABLES)}/index/${index}`),
      ),
    );
    const grantedIndexes = FUNCTION_KEYS.flatMap((key) =>
      Object.keys(dataAccess(key))
        .filter((id) => id.includes('/index/'))
        .map((id) => `${key} ${id}`),
    );
    expect(grantedIndexes.sort()).toEqual(named.sort());
    expect(grantedIndexes).toContain(`MigrationSweeper ${tableId('migrations')}/index/activeByUpdatedAt`);
  });

  test('config/get cannot write (but its rate-limit bucket), and no function can touch the dead-letter queue or scan', () => {
    const writes = /dynamodb:(Put|Update|Delete|BatchWrite|PartiQL(Insert|Update|Delete))/;
    const { [tableId('limits')]: bucket, ...data } = dataAccess('getConfig');
    expect(bucket).toEqual(['dynamodb:UpdateItem']);
    expect(
      Object.values(data)
        .flat()
        .filter((a) => writes.test(a)),
    ).toEqual([]);
    for (const key of FUNCTION_KEYS) {
      expect(Object.keys(dataAccess(key))).not.toContain(queueId('MigrationDeadLetterQueue'));
      expect(Object.values(dataAccess(key)).flat()).not.toContain('dynamodb:Scan');
    }
  });

  test("logs go only to the function's own log group; no managed policy", () => {
    for (const key of FUNCTION_KEYS) {
      const logs = roleStatements(key).filter((st) => asArray(st.Action).some((a) => a.startsWith('logs:')));
      const statement = only(logs);
      expect(asArray(statement.Action).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      expect(refId(statement.Resource)).toBe(refId(fnProps(key).LoggingConfig.LogGroup));
    }
  });
});

describe('HTTP API', () => {
  const integrationFunction = (routeKey: string) => {
    const [, route] = only(ofType('AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties.RouteKey === routeKey));
    expect(route.Properties.AuthorizationType).toBe('NONE');
    const integrationId: string = route.Properties.Target['Fn::Join'][1][1].Ref;
    const integration = res(integrationId).Properties;
    expect(integration).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    return refId(integration.IntegrationUri);
  };

  test('each operation path takes any method to its function; $default goes to NOT_FOUND', () => {
    expect(ofType('AWS::ApiGatewayV2::Route')).toHaveLength(ROUTES.length + 2 * PUBLIC_ROUTES.length + 1);
    for (const operation of ROUTES)
      expect(integrationFunction(`ANY ${operation.path}`)).toBe(fnId(operation.operationId));
    expect(integrationFunction('$default')).toBe(fnId('NotFound'));
  });

  test('the pages of the links: every path under /u/ and /p/, and the prefixes, to its function, with a throttle of its own', () => {
    expect(integrationFunction('ANY /u/{proxy+}')).toBe(fnId('unsubscribe'));
    expect(integrationFunction('ANY /p/{proxy+}')).toBe(fnId('preferencePage'));
    // `/u` (and `/u/`, which API Gateway matches to it) answers the page's 404, not the API's JSON.
    expect(integrationFunction('ANY /u')).toBe(fnId('unsubscribe'));
    expect(integrationFunction('ANY /p')).toBe(fnId('preferencePage'));
    // API Gateway may invoke the function from both routes, and from no other.
    const invokedFrom = (key: FunctionKey) =>
      ofType('AWS::Lambda::Permission')
        .filter(([, p]) => refId(p.Properties.FunctionName) === fnId(key))
        .map(([, p]) => (p.Properties.SourceArn['Fn::Join'][1] as string[]).at(-1))
        .sort();
    expect(invokedFrom('unsubscribe')).toEqual(['/*/*/u', '/*/*/u/{proxy+}']);
    expect(invokedFrom('preferencePage')).toEqual(['/*/*/p', '/*/*/p/{proxy+}']);
    const [stageId, stage] = only(ofType('AWS::ApiGatewayV2::Stage'));
    // Per route, in place of the stage's default (17/33): scanners of a bulk mail never take the API's share.
    expect(stage.Properties.RouteSettings).toEqual({
      'ANY /u/{proxy+}': { ThrottlingRateLimit: 11, ThrottlingBurstLimit: 22 },
      'ANY /u': { ThrottlingRateLimit: 11, ThrottlingBurstLimit: 22 },
      'ANY /p/{proxy+}': { ThrottlingRateLimit: 11, ThrottlingBurstLimit: 22 },
      'ANY /p': { ThrottlingRateLimit: 11, ThrottlingBurstLimit: 22 },
    });
    // A route setting may only name a route that exists: the stage waits for them.
    const routeIds = ofType('AWS::ApiGatewayV2::Route')
      .filter(([, r]) => /^ANY \/[up](\/|$)/.test(r.Properties.RouteKey))
      .map(([id]) => id);
    expect(routeIds).toHaveLength(4);
    expect((res(stageId) as { DependsOn?: string[] }).DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  test('the keys of the links: a secret Secrets Manager generates (no key in the template), one key to start', () => {
    const [, secret] = only(ofType('AWS::SecretsManager::Secret'));
    expect(secret.Properties.GenerateSecretString).toEqual({
      SecretStringTemplate: JSON.stringify({ current: 'k1' }),
      GenerateStringKey: 'key:k1',
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
    expect(secret.Properties.SecretString).toBeUndefined();
    // Not a protected stage: removed with the stack (a protected one keeps it: test/infra/stages.test.ts).
    expect(secret.DeletionPolicy).toBe('Delete');
  });

  test('an HTTP API without CORS', () => {
    const [, api] = only(ofType('AWS::ApiGatewayV2::Api'));
    expect(api.Properties.ProtocolType).toBe('HTTP');
    expect(api.Properties.CorsConfiguration).toBeUndefined();
  });

  test('the $default stage auto-deploys, throttles as configured and writes JSON access logs without headers', () => {
    const stage = only(ofType('AWS::ApiGatewayV2::Stage'))[1].Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 17, ThrottlingBurstLimit: 33 },
    });
    const destination = res(refId(stage.AccessLogSettings.DestinationArn));
    expect(destination.Type).toBe('AWS::Logs::LogGroup');
    expect(destination.Properties.RetentionInDays).toBe(14);
    // A vended-logs name: a generated one would need an entry in the account's size-limited
    // CloudWatch Logs resource policy, and the stage fails to create once it is full.
    expect(destination.Properties.LogGroupName).toBe('/aws/vendedlogs/NotificationPreferences-test/api-access');
    const format = JSON.parse(stage.AccessLogSettings.Format);
    expect(format).toEqual(ACCESS_LOG_FIELDS);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
    });
    expect(stage.AccessLogSettings.Format.toLowerCase()).not.toContain('header');
    // Nor the path: a link's token is in it (/u/<token>); the route key names the route without it.
    expect(stage.AccessLogSettings.Format).not.toMatch(/\$context\.(path|resourcePath)|http\.path/);
  });
});

describe('tables', () => {
  test('on-demand, point-in-time recovery, encrypted; destroyed with a non-production stage', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(Object.keys(TABLES).length);
    for (const [name, definition] of Object.entries(TABLES)) {
      const table = res(tableId(name as keyof typeof TABLES));
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: false,
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          ...('sortKey' in definition ? [{ AttributeName: definition.sortKey, KeyType: 'RANGE' }] : []),
        ],
      });
      expect(table.DeletionPolicy).toBe('Delete');
    }
  });

  test("the config table lets DynamoDB delete reset tombstones by their TTL attribute; the others don't expire", () => {
    expect(res(tableId('config')).Properties.TimeToLiveSpecification).toEqual({
      AttributeName: 'tombstoneExpiresAt',
      Enabled: true,
    });
    // A finished erasure's record expires (shared/erasure/kind.ts); migration records never get the attribute.
    expect(res(tableId('migrations')).Properties.TimeToLiveSpecification).toEqual({
      AttributeName: 'expiresAt',
      Enabled: true,
    });
    expect(res(tableId('credentials')).Properties.TimeToLiveSpecification).toBeUndefined();
  });
});

test('the migrations table indexes active migrations by updatedAt, whole records, for the sweeper of stuck ones', () => {
  expect(res(tableId('migrations')).Properties.GlobalSecondaryIndexes).toEqual([
    {
      IndexName: 'activeByUpdatedAt',
      KeySchema: [
        { AttributeName: 'activePk', KeyType: 'HASH' },
        { AttributeName: 'updatedAt', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ]);
});

describe('change history tables', () => {
  test('the config and migrations tables stream new and old images; the others stream nothing', () => {
    for (const name of ['config', 'migrations'] as const) {
      expect(res(tableId(name)).Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    }
    for (const name of ['credentials', 'history'] as const) {
      expect(res(tableId(name)).Properties.StreamSpecification).toBeUndefined();
    }
  });

  test("the history expires by its TTL attribute and has the index of one entry's changes", () => {
    const history = res(tableId('history')).Properties;
    expect(history.TimeToLiveSpecification).toEqual({ AttributeName: 'expiresAt', Enabled: true });
    expect(history.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'byEntry',
        KeySchema: [
          { AttributeName: 'entryPk', KeyType: 'HASH' },
          { AttributeName: 'entrySk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
  });
});

describe('stateful resources', () => {
  // A changed logical id replaces the resource: a new, empty table, or a queue without its
  // pending messages. These are the ids the stacks were first deployed with.
  test('tables and queues keep the logical ids they were first deployed with', () => {
    const ids = (type: string) =>
      ofType(type)
        .map(([id]) => id)
        .sort();
    expect(ids('AWS::DynamoDB::Table')).toEqual([
      'ConfigTable5CD72349',
      'CredentialsTableD9D3F717',
      'HistoryTable8F2A5C31',
      'MigrationsTable97ED8188',
      'RateLimitsTable',
    ]);
    expect(ids('AWS::SQS::Queue')).toEqual([
      'ChangePublisherFailureQueue98BBC116',
      'ErasureDeadLetterQueueFFEF4100',
      'ErasureQueue3725DE58',
      'ExportDeadLetterQueue5786E07E',
      'ExportQueueC5F748C5',
      'ImportDeadLetterQueue8CEE3CE0',
      'ImportQueueB0839EEE',
      'MigrationDeadLetterQueue934940CB',
      'MigrationQueue0B48C43A',
      'WebhookDeadLetterQueue6DD1CE59',
      'WebhookQueueA9D318EA',
    ]);
    expect(
      ofType('AWS::SQS::Queue')
        .filter(([, q]) => q.Properties.RedrivePolicy)
        .map(([id]) => id),
    ).toEqual([
      'MigrationQueue0B48C43A',
      'ErasureQueue3725DE58',
      'WebhookQueueA9D318EA',
      'ExportQueueC5F748C5',
      'ImportQueueB0839EEE',
    ]);
    expect(tableId('config')).toBe('ConfigTable5CD72349');
    expect(tableId('migrations')).toBe('MigrationsTable97ED8188');
    expect(tableId('credentials')).toBe('CredentialsTableD9D3F717');
  });
});

describe('migration queue', () => {
  test('redrives to an encrypted dead-letter queue kept 14 days; visibility is six consumer timeouts', () => {
    const queue = res(queueId('MigrationQueue')).Properties;
    const dlq = res(queueId('MigrationDeadLetterQueue')).Properties;
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [queueId('MigrationDeadLetterQueue'), 'Arn'] },
      maxReceiveCount: MIGRATION_MAX_RECEIVE_COUNT,
    });
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fnProps('MigrationConsumer').Timeout);
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    expect(dlq.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(fnProps('MigrationConsumer').Environment.Variables[ENV.migrationMaxReceiveCount]).toBe(
      String(queue.RedrivePolicy.maxReceiveCount),
    );
  });

  test('both queues refuse requests without TLS', () => {
    for (const name of ['MigrationQueue', 'MigrationDeadLetterQueue'] as const) {
      s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId(name) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Action: 'sqs:*',
              Resource: { 'Fn::GetAtt': [queueId(name), 'Arn'] },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
          ]),
        },
      });
    }
  });

  test('the consumer reads it with partial batch responses and the configured maximum concurrency', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => refId(m.Properties.FunctionName) === fnId('MigrationConsumer'),
    );
    expect(only(mappings)[1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [queueId('MigrationQueue'), 'Arn'] },
      FunctionName: { Ref: fnId('MigrationConsumer') },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 7 },
      BatchSize: 1,
    });
  });
});

describe('webhooks', () => {
  test("a rule sends the bus's subscribable events to the webhooks queue, whose dispatcher reads it in batches", () => {
    const [ruleId, rule] = only(ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.EventPattern));
    expect(rule.Properties.EventPattern).toEqual({
      source: ['notification-preferences'],
      'detail-type': Object.values(WEBHOOK_EVENT_TYPES),
    });
    expect(only(rule.Properties.Targets as Json[])).toMatchObject({
      Arn: { 'Fn::GetAtt': [queueId('WebhookQueue'), 'Arn'] },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId('WebhookDeadLetterQueue'), 'Arn'] } },
    });
    // Only this rule may send to the queue, and to its dead letters.
    const policies = ofType('AWS::SQS::QueuePolicy').filter(([, p]) =>
      JSON.stringify(p.Properties.Queues).includes(queueId('WebhookQueue')),
    );
    expect(JSON.stringify(only(policies)[1].Properties.PolicyDocument)).toContain(ruleId);
    expect(res(queueId('WebhookQueue')).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [queueId('WebhookDeadLetterQueue'), 'Arn'] },
        maxReceiveCount: WEBHOOK_MAX_RECEIVE_COUNT,
      },
      VisibilityTimeout: 6 * fnProps('WebhookDispatcher').Timeout,
    });
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => refId(m.Properties.FunctionName) === fnId('WebhookDispatcher'),
    );
    expect(only(mappings)[1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [queueId('WebhookQueue'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: WEBHOOK_BATCH_SIZE,
    });
    // Never told it may call loopback endpoints: that is the local twin's setting alone.
    expect(Object.keys(fnProps('WebhookDispatcher').Environment.Variables)).not.toContain(ENV.webhooksAllowLoopback);
    for (const key of FUNCTION_KEYS) {
      expect(Object.keys(fnProps(key).Environment.Variables)).not.toContain(ENV.webhooksAllowLoopback);
    }
  });
});

describe('user erasure', () => {
  test('its queue redrives to an encrypted dead-letter queue; the consumer reads it one message at a time', () => {
    expect(res(queueId('ErasureQueue')).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [queueId('ErasureDeadLetterQueue'), 'Arn'] },
        maxReceiveCount: ERASURE_MAX_RECEIVE_COUNT,
      },
      VisibilityTimeout: 6 * fnProps('ErasureConsumer').Timeout,
    });
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => refId(m.Properties.FunctionName) === fnId('ErasureConsumer'),
    );
    expect(only(mappings)[1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [queueId('ErasureQueue'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 1,
    });
  });

  test("the config table has the index of a user's entries (keys only), which only the erasure consumer queries", () => {
    expect(res(tableId('config')).Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'byUser',
        KeySchema: [
          { AttributeName: 'organizationId', KeyType: 'HASH' },
          { AttributeName: 'userId', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    expect(dataAccess('ErasureConsumer')[`${tableId('config')}/index/byUser`]).toEqual(['dynamodb:Query']);
  });
});

describe('change publisher', () => {
  const alarms = (): Json[] => ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const mappings = () =>
    ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => refId(m.Properties.FunctionName) === fnId('ChangePublisher'),
    );

  test("reads the config and migrations tables' streams: in order, halving a failing batch, partial batch responses, limited retries, then the on-failure queue", () => {
    const sources = mappings().map(([, m]) => m.Properties);
    expect(sources.map((m) => m.EventSourceArn['Fn::GetAtt']).sort()).toEqual([
      [tableId('config'), 'StreamArn'],
      [tableId('migrations'), 'StreamArn'],
    ]);
    for (const mapping of sources) {
      expect(mapping).toMatchObject({
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: CHANGE_PUBLISHER_BATCH_SIZE,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumRetryAttempts: CHANGE_PUBLISHER_MAX_RETRY_ATTEMPTS,
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [queueId('ChangePublisherFailureQueue'), 'Arn'] } },
        },
      });
      expect(mapping.ParallelizationFactor ?? 1).toBe(1);
    }
    expect(res(queueId('ChangePublisherFailureQueue')).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  test('each stream invokes it only for the records it acts on: event filters on every mapping', () => {
    const filtersOf = (table: 'config' | 'migrations') => {
      const [, mapping] = only(
        mappings().filter(([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][0] === tableId(table)),
      );
      return (mapping.Properties.FilterCriteria?.Filters ?? []).map((filter: { Pattern: string }) =>
        JSON.parse(filter.Pattern),
      );
    };
    // A finished job record, nothing else of the jobs table (locks, leases, progress, idempotency keys).
    expect(filtersOf('migrations')).toEqual([
      {
        eventName: ['INSERT', 'MODIFY'],
        dynamodb: { NewImage: { sk: { S: ['RECORD'] }, status: { S: ['completed', 'failed'] } } },
      },
    ]);
    // A user's entry before or after, or a policy written.
    const entry = { organizationId: { S: [{ exists: true }] }, userId: { S: [{ exists: true }] } };
    expect(filtersOf('config')).toEqual([
      { dynamodb: { NewImage: entry } },
      { dynamodb: { OldImage: entry } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { pk: { S: [{ prefix: 'POLICY#' }] } } } },
    ]);
  });

  test("puts events on the stack's own bus, and writes only the history", () => {
    const [busId] = only(ofType('AWS::Events::EventBus'));
    const access = dataAccess('ChangePublisher');
    expect(access[busId]).toEqual(['events:PutEvents']);
    expect(access[tableId('history')]).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:Query']);
    // On the config and migrations tables, only what the event source mappings need, on the streams.
    const streamStatements = roleStatements('ChangePublisher').filter((st) =>
      asArray(st.Action).some((action) => action.startsWith('dynamodb:') && action !== 'dynamodb:ListStreams'),
    );
    for (const table of ['config', 'migrations'] as const) {
      expect(access[tableId(table)]).toEqual([
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
      ]);
      const onTable = streamStatements.filter((st) => asArray(st.Resource).some((r) => refId(r) === tableId(table)));
      for (const resource of onTable.flatMap((st) => asArray(st.Resource))) {
        expect(resource).toEqual({ 'Fn::GetAtt': [expect.any(String), 'StreamArn'] });
      }
    }
    for (const key of FUNCTION_KEYS.filter((k) => k !== 'ChangePublisher')) {
      expect({ key, bus: dataAccess(key)[busId] }).toEqual({ key, bus: undefined });
    }
  });

  test('alarms: a batch given up on, and a publisher falling behind its stream', () => {
    const notEmpty = alarms().find(
      (a) => a.AlarmName === 'NotificationPreferences-test-ChangePublisherFailureQueueNotEmpty',
    );
    expect(notEmpty).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId('ChangePublisherFailureQueue'), 'QueueName'] } },
      ],
      Threshold: 0,
    });
    const behind = alarms().find((a) => a.AlarmName === 'NotificationPreferences-test-ChangePublisherIteratorAge');
    expect(behind).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId('ChangePublisher') } }],
      Statistic: 'Maximum',
      Threshold: 60_000,
    });
  });
});

describe('migration sweeper', () => {
  test('runs every 5 minutes, not retried (the next run comes soon)', () => {
    const [ruleId, rule] = only(ofType('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression));
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
    expect(only(rule.Properties.Targets as Json[])).toMatchObject({
      Arn: { 'Fn::GetAtt': [fnId('MigrationSweeper'), 'Arn'] },
      RetryPolicy: { MaximumRetryAttempts: 0 },
    });
    // Only the rule may invoke it.
    const permissions = ofType('AWS::Lambda::Permission').filter(
      ([, p]) => refId(p.Properties.FunctionName) === fnId('MigrationSweeper'),
    );
    expect(only(permissions)[1].Properties).toMatchObject({
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
  });
});

describe('alarms', () => {
  const alarms = (): Json[] => ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const topicId = () => only(ofType('AWS::SNS::Topic'))[0];

  test('dead-letter queue not empty', () => {
    const dlqAlarm = alarmNamed('MigrationDeadLetterQueueNotEmpty');
    expect(dlqAlarm).toMatchObject({
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId('MigrationDeadLetterQueue'), 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  test('errors and throttles of every function', () => {
    for (const key of FUNCTION_KEYS) {
      for (const metric of ['Errors', 'Throttles']) {
        const matching = alarms().filter(
          (a) => a.MetricName === metric && a.Dimensions?.[0]?.Value?.Ref === fnId(key) && a.Namespace === 'AWS/Lambda',
        );
        expect(only(matching)).toMatchObject({
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          Statistic: 'Sum',
        });
      }
    }
  });

  const alarmNamed = (id: string): Json =>
    only(alarms().filter((a) => a.AlarmName === `NotificationPreferences-test-${id}`));

  test('the dead-letter queue alarm notifies again on every new dead letter', () => {
    // NotEmpty stays in ALARM while any message remains; this one returns to OK when the count
    // stops rising, so the next failure is a new ALARM and a new mail.
    const growing = alarmNamed('MigrationDeadLetterQueueGrowing');
    const metrics: Json[] = growing.Metrics;
    expect(metrics.find((m) => m.Expression).Expression).toBe('DIFF(visible)');
    expect(metrics.find((m) => m.Id === 'visible').MetricStat).toMatchObject({
      Metric: {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId('MigrationDeadLetterQueue'), 'QueueName'] } },
        ],
      },
    });
    expect(growing).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', Threshold: 0 });
  });

  test('migration messages waiting long: a failed migration is retried without any Lambda error', () => {
    expect(alarmNamed('MigrationQueueOldestMessage')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId('MigrationQueue'), 'QueueName'] } }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      // Below the visibility timeout: a message that comes back after a failure always crosses it.
      Threshold: res(queueId('MigrationQueue')).Properties.VisibilityTimeout / 2,
    });
  });

  test('every function: p99 duration above 80 % of its own timeout', () => {
    for (const key of FUNCTION_KEYS) {
      expect({ key, alarm: alarmNamed(`${key}Duration`) }).toMatchObject({
        key,
        alarm: {
          Namespace: 'AWS/Lambda',
          MetricName: 'Duration',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId(key) } }],
          ExtendedStatistic: 'p99',
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: Math.round(0.8 * fnProps(key).Timeout * 1000),
        },
      });
    }
  });

  test('account concurrency above 80 % of the quota', () => {
    const alarm = alarmNamed('AccountConcurrency');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'ClaimedAccountConcurrency',
      Statistic: 'Maximum',
      Threshold: 800,
    });
    expect(alarm.Dimensions).toBeUndefined();
  });

  test('API 5xx rate over all requests', () => {
    const rate = alarmNamed('Api5xxRate');
    const metrics: Json[] = rate.Metrics;
    const names = metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric.MetricName);
    expect(names.sort()).toEqual(['5xx', 'Count']);
    expect(metrics.find((m) => m.Expression).Expression).toMatch(/100 \* errors \/ requests/);
    expect(rate).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', Threshold: 5 });
  });

  test('alarm names are stable and say what they watch', () => {
    expect(
      alarms()
        .map((a) => a.AlarmName)
        .sort(),
    ).toEqual(
      [
        'MigrationDeadLetterQueueNotEmpty',
        'MigrationDeadLetterQueueGrowing',
        'MigrationQueueOldestMessage',
        'ErasureDeadLetterQueueNotEmpty',
        'ErasureDeadLetterQueueGrowing',
        'ErasureQueueOldestMessage',
        'WebhookDeadLetterQueueNotEmpty',
        'WebhookDeadLetterQueueGrowing',
        'WebhookQueueOldestMessage',
        'ExportDeadLetterQueueNotEmpty',
        'ExportDeadLetterQueueGrowing',
        'ImportDeadLetterQueueNotEmpty',
        'ImportDeadLetterQueueGrowing',
        'ChangePublisherFailureQueueNotEmpty',
        'ChangePublisherFailureQueueGrowing',
        'ChangePublisherIteratorAge',
        'AccountConcurrency',
        'Api5xxRate',
        ...FUNCTION_KEYS.flatMap((key) => [`${key}Errors`, `${key}Throttles`, `${key}Duration`]),
      ]
        .map((id) => `NotificationPreferences-test-${id}`)
        .sort(),
    );
  });

  test('every alarm has a runbook entry in docs/operations.md', () => {
    const guide = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    const runbooks = guide.slice(guide.indexOf('## Alarms and runbooks'));
    const headings = [...runbooks.matchAll(/^### `?([^`\n]+)`?$/gm)].map((m) => m[1] as string);
    const documented = (id: string) =>
      headings.some(
        (h) => h === id || (h.startsWith('<function>') && FUNCTION_KEYS.some((key) => id === key + h.slice(10))),
      );
    const ids = alarms().map((a) => (a.AlarmName as string).replace('NotificationPreferences-test-', ''));
    expect(ids.filter((id) => !documented(id))).toEqual([]);
  });

  test('with an alarm email, every alarm notifies an encrypted, TLS-only topic with that subscription', () => {
    expect(alarms()).toHaveLength(18 + 3 * FUNCTION_KEYS.length);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId() }]);
    }
    const topic = res(topicId()).Properties;
    const key = res(refId(topic.KmsMasterKeyId));
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId() },
    });
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
          }),
        ]),
      },
    });
  });
});

test('outputs: API URL, table names, queue URLs, the event bus', () => {
  const outputs: Json = s.template.toJSON().Outputs;
  expect(Object.keys(outputs).sort()).toEqual(
    [
      'ApiUrl',
      'ConfigTableName',
      'CredentialsTableName',
      'MigrationDeadLetterQueueUrl',
      'MigrationQueueUrl',
      'MigrationsTableName',
      'HistoryTableName',
      'ErasureQueueUrl',
      'ErasureDeadLetterQueueUrl',
      'ExportQueueUrl',
      'ImportQueueUrl',
      'FilesBucketName',
      'ChangePublisherFailureQueueUrl',
      'WebhookQueueUrl',
      'WebhookDeadLetterQueueUrl',
      'EventBusName',
      'LinkKeysSecretArn',
    ].sort(),
  );
  expect(outputs.HistoryTableName.Value).toEqual({ Ref: tableId('history') });
  expect(outputs.EventBusName.Value).toEqual({ Ref: only(ofType('AWS::Events::EventBus'))[0] });
  expect(outputs.ChangePublisherFailureQueueUrl.Value).toEqual({ Ref: queueId('ChangePublisherFailureQueue') });
  expect(outputs.ConfigTableName.Value).toEqual({ Ref: tableId('config') });
  expect(outputs.MigrationsTableName.Value).toEqual({ Ref: tableId('migrations') });
  expect(outputs.CredentialsTableName.Value).toEqual({ Ref: tableId('credentials') });
  expect(outputs.MigrationQueueUrl.Value).toEqual({ Ref: queueId('MigrationQueue') });
  expect(outputs.MigrationDeadLetterQueueUrl.Value).toEqual({ Ref: queueId('MigrationDeadLetterQueue') });
  expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('execute-api');
});
