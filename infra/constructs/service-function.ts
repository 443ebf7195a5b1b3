import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EnvName } from '#shared/lambda/environment.js';

/** Repository root: handler entries in shared/deployment/functions.ts are relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The DynamoDB item actions a function may be given. Deliberately a closed list: no Scan,
 * no table-management actions, no wildcard. CDK's grantReadData/grantWriteData are not used
 * because they add actions no handler here performs (Scan, DescribeTable, ConditionCheckItem…).
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem';

/** SQS actions a function may be given to produce messages (consuming goes through the event source). */
export type QueueAction = 'SendMessage';

/** A table and the environment variable that carries its name to the functions. */
export interface BoundTable {
  table: ITable;
  env: EnvName;
}

/** A queue and the environment variable that carries its URL to the functions. */
export interface BoundQueue {
  queue: IQueue;
  env: EnvName;
}

export interface ServiceFunctionProps {
  /** Handler file relative to the repository root (see shared/deployment/functions.ts). */
  entry: string;
  description: string;
  /** Powertools settings and the function's own variables; table/queue variables come from grantTable/grantQueue. */
  environment: Record<string, string>;
  logRetention: RetentionDays;
  /** For the function's log group. */
  removalPolicy: RemovalPolicy;
  /** @default 512 MB: more memory also means more CPU for cold starts. */
  memorySize?: number;
  /** @default 10 s: the HTTP API waits at most 30 s for an integration. */
  timeout?: Duration;
}

/**
 * One Lambda function with the service's defaults set once: Node.js 24 on ARM64, an ESM
 * bundle (minified, source maps, AWS SDK bundled rather than taken from the runtime, so the
 * SDK version is the one the tests ran against), X-Ray tracing, its own log group with
 * retention, and its own role with no managed policy: log writes are granted on its log group
 * only. Tables and queues are bound with grantTable/grantQueue, which grant the listed actions
 * and set the environment variable together so that neither can be forgotten.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.entry}`,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs on every log group): this log group only.
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        // Stack traces point at the TypeScript sources.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        // The map only needs positions; embedding the sources would double the bundle.
        sourcesContent: false,
        mainFields: ['module', 'main'],
        // Bundle everything, the AWS SDK included.
        externalModules: [],
        // Some bundled CommonJS dependencies call require(); ESM has none unless created.
        banner: "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);",
      },
    });

    // Tracing.ACTIVE adds xray:PutTraceSegments and xray:PutTelemetryRecords on "*" to the
    // role's policy; created above, so the policy exists now.
    Validations.of(this.role.node.findChild('DefaultPolicy')).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the X-Ray statement added by Tracing.ACTIVE uses "*": xray:PutTraceSegments and ' +
        'xray:PutTelemetryRecords do not support resource-level permissions. Table and queue ' +
        'statements name their ARNs (checked by test/infra).',
    });
  }

  /** Grants exactly `actions` on the table (no index access) and sets its name variable. */
  grantTable({ table, env }: BoundTable, actions: readonly TableAction[]): this {
    table.grant(this.function, ...actions.map((action) => `dynamodb:${action}`));
    this.function.addEnvironment(env, table.tableName);
    return this;
  }

  /** Grants exactly `actions` on the queue and sets its URL variable. */
  grantQueue({ queue, env }: BoundQueue, actions: readonly QueueAction[]): this {
    queue.grant(this.function, ...actions.map((action) => `sqs:${action}`));
    this.function.addEnvironment(env, queue.queueUrl);
    return this;
  }
}
