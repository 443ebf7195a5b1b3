import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ServiceConfig } from '#infra/stage-settings.js';
import { functionSpecOf, OPERATIONS, type OperationId } from '#shared/api/operations.js';
import {
  type FunctionSetting,
  type FunctionSpec,
  MIGRATION_CONSUMER_FUNCTION,
  MIGRATION_MAX_RECEIVE_COUNT,
  MIGRATION_SWEEP_INTERVAL_MINUTES,
  MIGRATION_SWEEPER_FUNCTION,
  MIGRATION_VISIBILITY_TIMEOUT_SECONDS,
  NOT_FOUND_FUNCTION,
  type QueueName,
} from '#shared/deployment/functions.js';
import type { TableName } from '#shared/deployment/tables.js';
import { ENV } from '#shared/lambda/environment.js';
import { ServiceAlarms } from './constructs/service-alarms.js';
import { acknowledgeLogGroupRules, type BoundQueue, ServiceFunction } from './constructs/service-function.js';
import { CONTROL_TOWER } from './guard-rules.js';
import { createMigrationQueues } from './queues.js';
import { createServiceTables } from './tables.js';

export const SERVICE_NAME = 'notification-preferences';

export interface ServiceStackProps extends StackProps {
  config: ServiceConfig;
}

/**
 * The whole service: the HTTP API with one function per operation (shared/api/operations.ts) and a
 * NOT_FOUND catch-all, the migration queue and its consumer, the three tables, and alarms.
 */
export class ServiceStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly functions: Record<OperationId | 'NotFound' | 'MigrationConsumer' | 'MigrationSweeper', ServiceFunction>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { config } = props;
    // Logs and the alarm key follow the tables: kept for a protected stage (yet removed when
    // its first create fails, so a retry does not collide with orphans), removed elsewhere.
    const removalPolicy = config.protectData ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;
    const tables = createServiceTables(this, config.protectData);
    const { queue, deadLetterQueue } = createMigrationQueues(this);
    const migrationQueue: BoundQueue = { queue, env: ENV.migrationQueueUrl };

    const queues: Record<QueueName, BoundQueue> = { migrations: migrationQueue };
    // The environment each deployment setting a function reads becomes.
    const settings: Record<FunctionSetting, Record<string, string>> = {
      deliveryDefaults: {
        [ENV.defaultInbox]: config.defaultInbox,
        [ENV.defaultEmail]: config.defaultEmail,
        [ENV.defaultSlack]: config.defaultSlack,
      },
      credentialCache: { [ENV.credentialCacheSeconds]: String(config.credentialCacheSeconds) },
      migrationMaxReceiveCount: { [ENV.migrationMaxReceiveCount]: String(MIGRATION_MAX_RECEIVE_COUNT) },
      historyRetention: { [ENV.historyRetentionDays]: String(config.historyRetentionDays) },
    };

    /** One function from its spec: settings, grants and the variables naming what it may touch. */
    const deploy = (id: string, spec: FunctionSpec): ServiceFunction => {
      const fn = new ServiceFunction(this, id, {
        spec,
        logRetention: config.logRetentionDays,
        removalPolicy,
        environment: Object.assign(
          {
            POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
            POWERTOOLS_LOG_LEVEL: config.logLevel,
            // Business metrics (shared/lambda/metrics.ts): one namespace per stage.
            POWERTOOLS_METRICS_NAMESPACE: this.stackName,
          },
          ...(spec.settings ?? []).map((setting) => settings[setting]),
        ),
      });
      for (const [table, actions] of Object.entries(spec.tables ?? {})) {
        fn.grantTable(tables[table as TableName], actions);
      }
      for (const [table, indexes] of Object.entries(spec.indexes ?? {})) {
        for (const index of indexes) fn.grantIndexQuery(tables[table as TableName], index);
      }
      for (const [queue, actions] of Object.entries(spec.queues ?? {})) {
        fn.grantQueue(queues[queue as QueueName], actions);
      }
      return fn;
    };
    const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

    const routeFunctions = Object.fromEntries(
      OPERATIONS.map((operation) => [
        operation.operationId,
        deploy(`${pascal(operation.operationId)}Function`, functionSpecOf(operation)),
      ]),
    ) as Record<OperationId, ServiceFunction>;
    const notFound = deploy('NotFoundFunction', NOT_FOUND_FUNCTION);
    const consumer = deploy('MigrationConsumerFunction', MIGRATION_CONSUMER_FUNCTION);
    // Also grants what the event source mapping needs to receive and delete messages.
    consumer.function.addEventSource(
      new SqsEventSource(queue, {
        // One migration per invocation: each gets the whole time budget and fails alone.
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: config.consumerMaxConcurrency,
      }),
    );

    // A migration that stopped making progress (its message lost) is resumed or failed.
    const sweeper = deploy('MigrationSweeperFunction', MIGRATION_SWEEPER_FUNCTION);
    new Rule(this, 'MigrationSweepSchedule', {
      description: 'Runs the sweeper of stuck migrations',
      schedule: Schedule.rate(Duration.minutes(MIGRATION_SWEEP_INTERVAL_MINUTES)),
      // A failed sweep is not retried: the next one comes within minutes.
      targets: [new LambdaFunction(sweeper.function, { retryAttempts: 0 })],
    });

    this.functions = { ...routeFunctions, NotFound: notFound, MigrationConsumer: consumer, MigrationSweeper: sweeper };

    this.api = new HttpApi(this, 'HttpApi', {
      description: 'Notification preferences and document migration API',
      createDefaultStage: false,
      // Unknown paths reach a function that answers NOT_FOUND in the JSON envelope.
      defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', notFound.function),
    });
    for (const operation of OPERATIONS) {
      // ANY, not POST: the handler itself answers other methods with INVALID_ARGUMENT in the
      // envelope, where API Gateway would send its own non-JSON 404.
      const [httpRoute] = this.api.addRoutes({
        path: operation.path,
        methods: [HttpMethod.ANY],
        integration: new HttpLambdaIntegration(
          `${pascal(operation.operationId)}Integration`,
          routeFunctions[operation.operationId].function,
        ),
      });
      if (httpRoute) acknowledgeLambdaLevelAuth(httpRoute);
    }
    const defaultRoute = this.api.node.tryFindChild('DefaultRoute');
    if (defaultRoute) acknowledgeLambdaLevelAuth(defaultRoute);

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      // API Gateway delivers access logs as vended logs: a group under this prefix needs no entry
      // in the account's CloudWatch Logs resource policy, which is limited to 5,120 characters
      // and, in a busy account, full (the stage would then fail to create).
      logGroupName: `/aws/vendedlogs/${this.stackName}/api-access`,
      retention: config.logRetentionDays,
      removalPolicy,
    });
    acknowledgeLogGroupRules(accessLogs);
    this.stage = new HttpStage(this, 'ApiStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.throttleRate, burstLimit: config.throttleBurst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    const alarms = new ServiceAlarms(this, 'Alarms', {
      removalPolicy,
      ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
    });
    alarms.addDeadLetterQueue('MigrationDeadLetterQueue', deadLetterQueue);
    // A message seen again after a failure is at least one visibility timeout old; half of it
    // is already more than a healthy migration message waits.
    alarms.addQueueAge('MigrationQueueOldestMessage', queue, MIGRATION_VISIBILITY_TIMEOUT_SECONDS / 2);
    for (const [id, fn] of Object.entries(this.functions)) {
      alarms.addFunction(id, fn.function, fn.timeoutSeconds);
    }
    alarms.addAccountConcurrency('AccountConcurrency', config.accountConcurrencyLimit);
    alarms.addApi('Api5xxRate', this.api);

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'ConfigTableName', { value: tables.config.table.tableName });
    new CfnOutput(this, 'MigrationsTableName', { value: tables.migrations.table.tableName });
    new CfnOutput(this, 'CredentialsTableName', {
      value: tables.credentials.table.tableName,
      description: 'Pass to `npm run credentials -- create --table`',
    });
    new CfnOutput(this, 'MigrationQueueUrl', { value: queue.queueUrl });
    new CfnOutput(this, 'MigrationDeadLetterQueueUrl', { value: deadLetterQueue.queueUrl });
  }
}

/**
 * One JSON object per request. Deliberately no headers: the auth token travels in one.
 * Variables: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging-variables.html
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
} as const;

const LAMBDA_LEVEL_AUTH =
  'Authentication is done in the function (shared Middy middleware, before any body ' +
  'validation): x-service-api-key and x-service-auth-token are checked against the ' +
  'credentials table, which also decides the organizations the caller may use. The ' +
  '$default route answers NOT_FOUND and touches no data. A gateway authorizer would ' +
  "answer 401/403 outside the API's JSON envelope.";

/** A route, and the permission that lets it invoke its function (a child of the route). */
const acknowledgeLambdaLevelAuth = (route: Construct) =>
  Validations.of(route).acknowledge(
    { id: 'AwsSolutions-APIG4', reason: LAMBDA_LEVEL_AUTH },
    { id: CONTROL_TOWER.routeAuthorization, reason: LAMBDA_LEVEL_AUTH },
    {
      id: CONTROL_TOWER.lambdaPermissionSource,
      reason:
        "The permission's SourceArn is this API's execute-api ARN, which CloudFormation builds with " +
        'Fn::Join from the API id; the rule only accepts a literal string there.',
    },
  );
