import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { isProductionStage, type ServiceConfig } from '#infra/stage-settings.js';
import { MIGRATION_CONSUMER_ENTRY, NOT_FOUND_ENTRY, ROUTES, type RouteId } from '#shared/deployment/functions.js';
import { ENV } from '#shared/lambda/environment.js';
import { ServiceAlarms } from './constructs/service-alarms.js';
import { type BoundQueue, ServiceFunction, type TableAction } from './constructs/service-function.js';
import { createServiceTables } from './tables.js';

export const SERVICE_NAME = 'notification-preferences';

/** Lambda retries a migration message this many times before it goes to the dead-letter queue. */
export const MIGRATION_MAX_RECEIVE_COUNT = 5;
export const CONSUMER_TIMEOUT = Duration.minutes(1);
/** AWS's advice for an SQS event source: at least six times the function timeout. */
export const MIGRATION_VISIBILITY_TIMEOUT = Duration.seconds(6 * CONSUMER_TIMEOUT.toSeconds());

/**
 * The largest config/set (1000 users x 30 documents) is 30,000 writes: it gets all the time an
 * HTTP API integration allows (30 s, less a second) instead of the 10 s default.
 */
export const CONFIG_SET_TIMEOUT = Duration.seconds(29);

// DynamoDB item actions per use: what the code behind each function calls, nothing more
// (test/infra/permissions.test.ts derives the same from the sources). CDK's grantReadData/
// grantReadWriteData are not used: they add Scan, ConditionCheckItem, DescribeTable and
// batch writes that no function performs.
/** Authenticator: DynamoCredentialStore.get. */
const CREDENTIAL_LOOKUP: TableAction[] = ['GetItem'];
/** setConfig: DynamoPreferenceStore.setChannels (a partial update, so no lost update). */
const CONFIG_SET: TableAction[] = ['UpdateItem'];
/** getConfig: DynamoPreferenceStore.getEntries (batched reads). */
const CONFIG_GET: TableAction[] = ['BatchGetItem'];
/** startMigration: create the record and the document locks, read them, fail, release locks. */
const MIGRATION_START: TableAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];
/** getMigrationView: read the record. */
const MIGRATION_STATUS: TableAction[] = ['GetItem'];
/** runMigration: lease, progress, complete or fail (updates), read the record, release locks. */
const MIGRATION_RUN: TableAction[] = ['GetItem', 'UpdateItem', 'DeleteItem'];
/** runMigration: list source entries, read targets, conditional copy and delete. */
const CONFIG_MIGRATION: TableAction[] = ['Query', 'BatchGetItem', 'PutItem', 'DeleteItem'];

export interface ServiceStackProps extends StackProps {
  config: ServiceConfig;
}

/**
 * The whole service: the HTTP API with one function per operation (shared/deployment/functions.ts) and a
 * NOT_FOUND catch-all, the migration queue and its consumer, the three tables, and alarms.
 */
export class ServiceStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly functions: Record<RouteId | 'NotFound' | 'MigrationConsumer', ServiceFunction>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { config } = props;
    const production = isProductionStage(config);
    // Logs and the alarm key follow the tables: kept for production, removed elsewhere.
    const removalPolicy = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const tables = createServiceTables(this, production);

    // SQS-managed encryption (SSE-SQS): messages hold only identifiers, and a KMS key would
    // add a key policy, kms:GenerateDataKey/Decrypt grants to producers and the consumer, and
    // a KMS call per batch, for no control the service needs.
    const deadLetterQueue = new Queue(this, 'MigrationDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const queue = new Queue(this, 'MigrationQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: MIGRATION_VISIBILITY_TIMEOUT,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MIGRATION_MAX_RECEIVE_COUNT },
    });
    const migrationQueue: BoundQueue = { queue, env: ENV.migrationQueueUrl };

    const newFunction = (
      id: string,
      entry: string,
      description: string,
      extra: { environment?: Record<string, string>; timeout?: Duration } = {},
    ) =>
      new ServiceFunction(this, id, {
        entry,
        description,
        logRetention: config.logRetentionDays,
        removalPolicy,
        environment: {
          POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
          POWERTOOLS_LOG_LEVEL: config.logLevel,
          ...extra.environment,
        },
        ...(extra.timeout ? { timeout: extra.timeout } : {}),
      });

    // Every operation authenticates against the credentials table first.
    const httpEnvironment = { [ENV.credentialCacheSeconds]: String(config.credentialCacheSeconds) };
    const access: Record<
      RouteId,
      { environment?: Record<string, string>; timeout?: Duration; bind: (fn: ServiceFunction) => void }
    > = {
      ConfigSet: { timeout: CONFIG_SET_TIMEOUT, bind: (fn) => fn.grantTable(tables.config, CONFIG_SET) },
      ConfigGet: {
        environment: {
          [ENV.defaultInbox]: config.defaultInbox,
          [ENV.defaultEmail]: config.defaultEmail,
          [ENV.defaultSlack]: config.defaultSlack,
        },
        bind: (fn) => fn.grantTable(tables.config, CONFIG_GET),
      },
      Migrate: {
        bind: (fn) => fn.grantTable(tables.migrations, MIGRATION_START).grantQueue(migrationQueue, ['SendMessage']),
      },
      MigrateStatus: { bind: (fn) => fn.grantTable(tables.migrations, MIGRATION_STATUS) },
    };

    const routeFunctions = Object.fromEntries(
      ROUTES.map((route) => {
        const fn = newFunction(`${route.id}Function`, route.entry, `POST ${route.path}`, {
          environment: { ...httpEnvironment, ...access[route.id].environment },
          ...(access[route.id].timeout ? { timeout: access[route.id].timeout } : {}),
        });
        fn.grantTable(tables.credentials, CREDENTIAL_LOOKUP);
        access[route.id].bind(fn);
        return [route.id, fn];
      }),
    ) as Record<RouteId, ServiceFunction>;

    // No table access: it answers NOT_FOUND without looking at the request.
    const notFound = newFunction('NotFoundFunction', NOT_FOUND_ENTRY, 'Any unknown route: NOT_FOUND');

    const consumer = newFunction(
      'MigrationConsumerFunction',
      MIGRATION_CONSUMER_ENTRY,
      'Performs document migrations',
      {
        timeout: CONSUMER_TIMEOUT,
        environment: { [ENV.migrationMaxReceiveCount]: String(MIGRATION_MAX_RECEIVE_COUNT) },
      },
    );
    consumer
      .grantTable(tables.config, CONFIG_MIGRATION)
      .grantTable(tables.migrations, MIGRATION_RUN)
      // Continuations of a long migration go back on its own queue.
      .grantQueue(migrationQueue, ['SendMessage']);
    // Also grants what the event source mapping needs to receive and delete messages.
    consumer.function.addEventSource(
      new SqsEventSource(queue, {
        // One migration per invocation: each gets the whole time budget and fails alone.
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: config.consumerMaxConcurrency,
      }),
    );

    this.functions = { ...routeFunctions, NotFound: notFound, MigrationConsumer: consumer };

    this.api = new HttpApi(this, 'HttpApi', {
      description: 'Notification preferences and document migration API',
      createDefaultStage: false,
      // Unknown paths reach a function that answers NOT_FOUND in the JSON envelope.
      defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', notFound.function),
    });
    for (const route of ROUTES) {
      // ANY, not POST: the handler itself answers other methods with INVALID_ARGUMENT in the
      // envelope, where API Gateway would send its own non-JSON 404.
      const [httpRoute] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod.ANY],
        integration: new HttpLambdaIntegration(`${route.id}Integration`, routeFunctions[route.id].function),
      });
      if (httpRoute) acknowledgeLambdaLevelAuth(httpRoute);
    }
    const defaultRoute = this.api.node.tryFindChild('DefaultRoute');
    if (defaultRoute) acknowledgeLambdaLevelAuth(defaultRoute);

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: config.logRetentionDays, removalPolicy });
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
    alarms.addDeadLetterQueue('MigrationDeadLetterQueueNotEmpty', deadLetterQueue);
    for (const [id, fn] of Object.entries(this.functions)) alarms.addFunction(id, fn.function);
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

const acknowledgeLambdaLevelAuth = (route: Construct) =>
  Validations.of(route).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'Authentication is done in the function (shared Middy middleware, before any body ' +
      'validation): x-service-api-key and x-service-auth-token are checked against the ' +
      'credentials table, which also decides the organizations the caller may use. The ' +
      '$default route answers NOT_FOUND and touches no data. A gateway authorizer would ' +
      "answer 401/403 outside the contract's JSON envelope.",
  });
