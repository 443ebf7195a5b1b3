import { join } from 'node:path';
import { type CfnElement, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { esbuildAliases } from '#service/bundle-aliases.js';
import { type FunctionSpec, memoryOf, timeoutSecondsOf } from '#service/functions.js';
import { LAMBDA_SDK_SETTINGS } from '#service/lambda-sdk-settings.js';
import { REPO_ROOT } from '#service/repository-root.js';
import { FILE_FOLDERS } from '#shared/files/keys.js';
import type { EnvName } from '#shared/platform/environment.js';
import type { FileAction, FileFolder, QueueAction, TableAction } from '#shared/platform/route.js';
import { CONTROL_TOWER } from '../guard-rules.js';

/** Why the service's log groups are exempt from two Control Tower rules (see infra/guard-rules.ts). */
export const acknowledgeLogGroupRules = (logGroup: Construct): void =>
  Validations.of(logGroup).acknowledge(
    {
      id: CONTROL_TOWER.logRetentionYear,
      reason:
        'Retention is the logRetentionDays stage setting (30 days by default): these logs are for ' +
        'debugging and hold request metadata, not an audit trail; a stage that must keep a year sets 365.',
    },
    {
      id: CONTROL_TOWER.logKmsKey,
      reason:
        'CloudWatch Logs encrypts every log group at rest; the logs never contain credentials (no ' +
        'headers are logged), and a customer managed key would add a key policy for the logs service ' +
        'per region for no control the service needs.',
    },
  );

const SOURCE_MAP_PATHS_SCRIPT = join(REPO_ROOT, 'infra/bundling/source-map-paths.mjs');
/** For the bundling command line, which runs in a shell. */
const shellQuote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** A table and the environment variable that carries its name to the functions. */
export interface BoundTable {
  table: ITable;
  env: EnvName;
}

/** A secret and the environment variable that carries its ARN to the functions. */
export interface BoundSecret {
  secret: ISecret;
  env: EnvName;
}

/** A bucket and the environment variable that carries its name to the functions. */
export interface BoundBucket {
  bucket: IBucket;
  env: EnvName;
}

/** A queue and the environment variable that carries its URL to the functions. */
export interface BoundQueue {
  queue: IQueue;
  env: EnvName;
}

export interface ServiceFunctionProps {
  /** What the function is: handler file, memory, timeout (service/functions.ts). */
  spec: FunctionSpec;
  /** Powertools settings and the function's own variables; table/queue variables come from grantTable/grantQueue. */
  environment: Record<string, string>;
  logRetention: RetentionDays;
  /** For the function's log group. */
  removalPolicy: RemovalPolicy;
  /**
   * A plain SDK function: the SDK's default credential chain instead of the environment-only
   * provider (service/bundle-aliases.ts), its settings looked up as usual instead of set in the
   * environment (service/lambda-sdk-settings.ts), and node without source-map support. For code
   * that must look like a plain SDK function (the bench's baselines); the service's functions
   * never set it.
   */
  plainSdk?: boolean;
}

/** esbuild's `--alias` arguments for the bundle aliases (run in the project root: `projectRoot`). */
const aliasArgs = () => ({
  '--alias': Object.entries(esbuildAliases()).map(([specifier, target]) => `${specifier}=${target}`),
});

/**
 * One Lambda function with the service's defaults set once: Node.js 24 on ARM64, an ESM
 * bundle (minified, source maps, AWS SDK bundled rather than taken from the runtime, so the
 * SDK version is the one the tests ran against; credentials from the environment only), X-Ray
 * tracing, its own log group with retention, and its own role with no managed policy: log
 * writes are granted on its log group only. Tables and queues are bound with
 * grantTable/grantQueue, which grant the listed actions and set the environment variable together
 * so that neither can be forgotten.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly timeoutSeconds: number;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.timeoutSeconds = timeoutSecondsOf(props.spec);

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    acknowledgeLogGroupRules(this.logGroup);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.spec.entry}`,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs on every log group): this log group only.
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(REPO_ROOT, props.spec.entry),
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      handler: 'handler',
      description: props.spec.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: memoryOf(props.spec),
      timeout: Duration.seconds(this.timeoutSeconds),
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        // SDK settings found at the first place the SDK looks (why: service/lambda-sdk-settings.ts);
        // logged stacks that point at the TypeScript sources, through Node's own source-map
        // support (its cold-start cost: docs/design.md, Stack traces).
        ...(props.plainSdk ? {} : { ...LAMBDA_SDK_SETTINGS, NODE_OPTIONS: '--enable-source-maps' }),
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        // The map only needs positions; embedding the sources would double the asset and the
        // map Node reads at each cold start.
        sourcesContent: false,
        mainFields: ['module', 'main'],
        // Bundle everything, the AWS SDK included.
        externalModules: [],
        // Some bundled CommonJS dependencies call require(); ESM has none unless created.
        banner: "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);",
        // Text as UTF-8, as Node reads a module: esbuild's default (ASCII) writes every other
        // character as a six-byte \u escape, two to three times the size of the pages' Arabic and
        // Japanese words. (The `charset` bundling option is declared by this CDK release but not
        // passed to esbuild; esbuildArgs is the documented way to any other flag.) And modules of
        // this repository in place of SDK packages a Lambda function never needs.
        esbuildArgs: { '--charset': 'utf8', ...(props.plainSdk ? {} : aliasArgs()) },
        // The asset hash is taken from the output, map included: its paths must not depend on
        // where the cloud assembly is written (`cdk synth -o`).
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir, outputDir) => [
            [process.execPath, SOURCE_MAP_PATHS_SCRIPT, join(outputDir, 'index.mjs.map'), inputDir]
              .map(shellQuote)
              .join(' '),
          ],
        },
      },
    });

    Validations.of(this.function).acknowledge({
      id: CONTROL_TOWER.lambdaVpc,
      reason:
        'The functions reach only DynamoDB and SQS through their public, IAM-authenticated endpoints, ' +
        'over TLS; a VPC would add NAT or VPC endpoints to pay for and keep, for no private resource to reach.',
    });

    // Tracing.ACTIVE adds xray:PutTraceSegments and xray:PutTelemetryRecords on "*" to the
    // role's policy; created above, so the policy exists now.
    Validations.of(this.role.node.findChild('DefaultPolicy')).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the X-Ray statement added by Tracing.ACTIVE uses "*": xray:PutTraceSegments and ' +
        'xray:PutTelemetryRecords do not support resource-level permissions; so does ' +
        'dynamodb:ListStreams, which a DynamoDB stream event source grants its function. Table, ' +
        'stream and queue statements name their ARNs (checked by test/infra).',
    });
  }

  /**
   * Grants exactly `actions` on the table, not on its indexes, and sets its name variable.
   * (CDK's table.grant would add `<table>/index/*` to every grant once the table has an index.)
   */
  grantTable({ table, env }: BoundTable, actions: readonly TableAction[]): this {
    Grant.addToPrincipal({
      grantee: this.function,
      actions: actions.map((action) => `dynamodb:${action}`),
      resourceArns: [table.tableArn],
    });
    this.function.addEnvironment(env, table.tableName);
    return this;
  }

  /** Grants Query on one index of the table (by name, no wildcard) and sets the table's name variable. */
  grantIndexQuery({ table, env }: BoundTable, indexName: string): this {
    Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:Query'],
      resourceArns: [`${table.tableArn}/index/${indexName}`],
    });
    this.function.addEnvironment(env, table.tableName);
    return this;
  }

  /**
   * Grants reading the secret's value (GetSecretValue on its ARN, nothing else: not DescribeSecret,
   * which secret.grantRead adds) and sets its ARN variable. It is encrypted with the account's
   * Secrets Manager key, whose use the service grants to whoever may read the secret.
   */
  grantSecret({ secret, env }: BoundSecret): this {
    Grant.addToPrincipal({
      grantee: this.function,
      actions: ['secretsmanager:GetSecretValue'],
      resourceArns: [secret.secretArn],
    });
    this.function.addEnvironment(env, secret.secretArn);
    return this;
  }

  /**
   * Grants exactly `actions` on the objects of one folder of the files bucket (`<folder>/*`, not
   * the bucket: no listing) and sets the bucket's name variable.
   */
  grantFiles({ bucket, env }: BoundBucket, folder: FileFolder, actions: readonly FileAction[]): this {
    Grant.addToPrincipal({
      grantee: this.function,
      actions: actions.map((action) => `s3:${action}`),
      resourceArns: [bucket.arnForObjects(`${FILE_FOLDERS[folder]}/*`)],
    });
    const bucketId = Stack.of(bucket).resolve((bucket.node.defaultChild as CfnElement).logicalId);
    Validations.of(this.role.node.findChild('DefaultPolicy')).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${FILE_FOLDERS[folder]}/*]`,
      reason:
        'The objects of one folder of the files bucket: each file has a random key made at run time ' +
        '(shared/files/keys.ts), so the grant names the folder, never the bucket or its other folders.',
    });
    this.function.addEnvironment(env, bucket.bucketName);
    return this;
  }

  /** Grants exactly `actions` on the queue and sets its URL variable. */
  grantQueue({ queue, env }: BoundQueue, actions: readonly QueueAction[]): this {
    queue.grant(this.function, ...actions.map((action) => `sqs:${action}`));
    this.function.addEnvironment(env, queue.queueUrl);
    return this;
  }
}
