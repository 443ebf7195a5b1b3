import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { ServiceConfig } from '#infra/stage-settings.js';
import {
  CHANGE_PUBLISHER_BATCH_SIZE,
  CHANGE_PUBLISHER_BISECT_ON_ERROR,
  CHANGE_PUBLISHER_FUNCTION,
  CHANGE_PUBLISHER_MAX_RETRY_ATTEMPTS,
  ERASURE_CONSUMER_FUNCTION,
  ERASURE_MAX_RECEIVE_COUNT,
  EXPORT_CONSUMER_FUNCTION,
  EXPORT_MAX_RECEIVE_COUNT,
  type FunctionSpec,
  IMPORT_CONSUMER_FUNCTION,
  IMPORT_MAX_RECEIVE_COUNT,
  MIGRATION_CONSUMER_FUNCTION,
  MIGRATION_MAX_RECEIVE_COUNT,
  MIGRATION_SWEEP_INTERVAL_MINUTES,
  MIGRATION_SWEEPER_FUNCTION,
  NOT_FOUND_FUNCTION,
  WEBHOOK_DISPATCHER_FUNCTION,
} from '#service/functions.js';
import {
  functionSpecOf,
  PUBLIC_ROUTES,
  type PublicRouteId,
  publicFunctionSpecOf,
  ROUTES,
  type RouteId,
} from '#service/routes.js';
import { TABLES, type TableName } from '#service/tables.js';
import { ENV } from '#shared/platform/environment.js';
import type { FileFolder, FunctionSetting, QueueName, SecretName } from '#shared/platform/route.js';
import { watchService } from './alarms.js';
import { type BoundBucket, type BoundQueue, type BoundSecret, ServiceFunction } from './constructs/service-function.js';
import { createFilesBucket, noticeUploads } from './files-bucket.js';
import { createHttpApi, pascal } from './http-api.js';
import {
  createErasureQueues,
  createExportQueues,
  createImportQueues,
  createMigrationQueues,
  createPublisherFailureQueue,
  createWebhookQueues,
} from './queues.js';
import { createServiceTables } from './tables.js';
import { consumeWebhooks, routeEventsToWebhooks } from './webhooks.js';

export const SERVICE_NAME = 'notification-preferences';

export interface ServiceStackProps extends StackProps {
  config: ServiceConfig;
}

/**
 * The whole service: the HTTP API with one function per route (service/routes.ts) and a
 * NOT_FOUND catch-all, the migration and erasure queues and their consumers, the change publisher
 * on the tables' streams and the event bus it publishes to, the tables, and alarms.
 */
export class ServiceStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly functions: Record<
    | RouteId
    | PublicRouteId
    | 'NotFound'
    | 'MigrationConsumer'
    | 'MigrationSweeper'
    | 'ErasureConsumer'
    | 'ExportConsumer'
    | 'ImportConsumer'
    | 'ChangePublisher'
    | 'WebhookDispatcher',
    ServiceFunction
  >;
  /** The secrets functions read, by their name in the function specs. */
  readonly secrets: Record<SecretName, BoundSecret>;
  /** The bus the service's events go to (docs/api.md, Events). */
  readonly eventBus: EventBus;
  /** The work queues functions send to, by their name in the function specs. */
  readonly queues: Record<QueueName, BoundQueue>;
  /** The tables, by their name in service/tables.ts. */
  readonly tables: ReturnType<typeof createServiceTables>;
  /** The bucket of import and export files (infra/files-bucket.ts). */
  readonly files: BoundBucket;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { config } = props;
    // Logs and the alarm key follow the tables: kept for a protected stage (yet removed when
    // its first create fails, so a retry does not collide with orphans), removed elsewhere.
    const removalPolicy = config.protectData ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY;
    const tables = createServiceTables(this, config.protectData);
    const { queue, deadLetterQueue } = createMigrationQueues(this);
    const migrationQueue: BoundQueue = { queue, env: ENV.migrationQueueUrl };

    const erasureQueues = createErasureQueues(this);
    const webhookQueues = createWebhookQueues(this);
    const exportQueues = createExportQueues(this);
    const importQueues = createImportQueues(this);
    this.tables = tables;
    const files: BoundBucket = { bucket: createFilesBucket(this, removalPolicy), env: ENV.filesBucket };
    this.files = files;
    const queues: Record<QueueName, BoundQueue> = {
      migrations: migrationQueue,
      erasures: { queue: erasureQueues.queue, env: ENV.erasureQueueUrl },
      webhooks: { queue: webhookQueues.queue, env: ENV.webhookQueueUrl },
      exports: { queue: exportQueues.queue, env: ENV.exportQueueUrl },
      imports: { queue: importQueues.queue, env: ENV.importQueueUrl },
    };
    this.queues = queues;
    this.eventBus = new EventBus(this, 'EventBus', {
      description: 'Events of the notification preferences service: config changes, migrations, erasures',
    });
    // The keys of the links in emails (shared/links/keyring.ts): Secrets Manager generates the
    // first key itself, so that no key passes through the template. Losing it would break every
    // link already sent: it is kept with the data of a protected stage.
    const linkKeys = new Secret(this, 'LinkKeys', {
      description: 'Keys of the unsubscribe and preference links in emails (docs/operations.md, Link keys)',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ current: INITIAL_LINK_KEY_ID }),
        generateStringKey: `key:${INITIAL_LINK_KEY_ID}`,
        passwordLength: 64,
        excludePunctuation: true,
      },
      // Like the tables: kept on a protected stage's deletion, removed when its first create fails.
      removalPolicy,
    });
    Validations.of(linkKeys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The link keys are rotated by the operators with `npm run link-keys` (docs/operations.md, Link keys): a new ' +
        'key is added and made current, and the old one kept until every link it sealed has expired (365 days). ' +
        "Secrets Manager's rotation would replace the key at once and break every link already sent.",
    });
    const secrets: Record<SecretName, BoundSecret> = { linkKeys: { secret: linkKeys, env: ENV.linkKeysSecret } };
    this.secrets = secrets;
    // Batches of stream records the change publisher gave up on.
    const publisherFailures = createPublisherFailureQueue(this);
    // The environment each deployment setting a function reads becomes.
    const settings: Record<FunctionSetting, Record<string, string>> = {
      deliveryDefaults: {
        [ENV.defaultInbox]: config.defaultInbox,
        [ENV.defaultEmail]: config.defaultEmail,
        [ENV.defaultSlack]: config.defaultSlack,
      },
      credentialCache: { [ENV.credentialCacheSeconds]: String(config.credentialCacheSeconds) },
      policyCache: { [ENV.policyCacheSeconds]: String(config.policyCacheSeconds) },
      migrationMaxReceiveCount: { [ENV.migrationMaxReceiveCount]: String(MIGRATION_MAX_RECEIVE_COUNT) },
      historyRetention: { [ENV.historyRetentionDays]: String(config.historyRetentionDays) },
      erasureMaxReceiveCount: { [ENV.erasureMaxReceiveCount]: String(ERASURE_MAX_RECEIVE_COUNT) },
      exportMaxReceiveCount: { [ENV.exportMaxReceiveCount]: String(EXPORT_MAX_RECEIVE_COUNT) },
      importMaxReceiveCount: { [ENV.importMaxReceiveCount]: String(IMPORT_MAX_RECEIVE_COUNT) },
      importWriteRate: { [ENV.importWritesPerSecond]: String(config.importWritesPerSecond) },
      rateLimit: {
        [ENV.rateLimitPerSecond]: String(config.rateLimitPerSecond),
        [ENV.rateLimitBurst]: String(config.rateLimitBurst),
      },
      linksBaseUrl: config.linksBaseUrl ? { [ENV.linksBaseUrl]: config.linksBaseUrl } : {},
      linkEvidence: { [ENV.linkEvidenceClient]: String(config.linkEvidenceClient) },
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
            // Business metrics (shared/platform/metrics.ts): one namespace per stage.
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
      for (const [folder, actions] of Object.entries(spec.files ?? {})) {
        fn.grantFiles(files, folder as FileFolder, actions);
      }
      for (const secret of spec.secrets ?? []) fn.grantSecret(secrets[secret]);
      if (spec.eventBus?.includes('PutEvents')) {
        this.eventBus.grantPutEventsTo(fn.function);
        fn.function.addEnvironment(ENV.eventBusName, this.eventBus.eventBusName);
      }
      for (const table of spec.streams ?? []) {
        // The event source mapping also grants reading the stream; the function learns the
        // table's name to tell which stream a record comes from.
        fn.function.addEventSource(
          new DynamoEventSource(tables[table].table, {
            startingPosition: StartingPosition.TRIM_HORIZON,
            batchSize: CHANGE_PUBLISHER_BATCH_SIZE,
            bisectBatchOnError: CHANGE_PUBLISHER_BISECT_ON_ERROR,
            reportBatchItemFailures: true,
            retryAttempts: CHANGE_PUBLISHER_MAX_RETRY_ATTEMPTS,
            onFailure: new SqsDlq(publisherFailures),
            // Only the records the function acts on invoke it (service/functions.ts).
            filters: (spec.streamFilters?.[table] ?? []).map((pattern) => FilterCriteria.filter(pattern)),
          }),
        );
        fn.function.addEnvironment(TABLES[table].env, tables[table].table.tableName);
      }
      return fn;
    };

    const routeFunctions = Object.fromEntries(
      ROUTES.map((route) => [route.operationId, deploy(`${pascal(route.operationId)}Function`, functionSpecOf(route))]),
    ) as Record<RouteId, ServiceFunction>;
    const publicFunctions = Object.fromEntries(
      PUBLIC_ROUTES.map((route) => [route.id, deploy(`${pascal(route.id)}Function`, publicFunctionSpecOf(route))]),
    ) as Record<PublicRouteId, ServiceFunction>;
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

    const erasureConsumer = deploy('ErasureConsumerFunction', ERASURE_CONSUMER_FUNCTION);
    erasureConsumer.function.addEventSource(
      new SqsEventSource(erasureQueues.queue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: config.consumerMaxConcurrency,
      }),
    );
    const exportConsumer = deploy('ExportConsumerFunction', EXPORT_CONSUMER_FUNCTION);
    exportConsumer.function.addEventSource(
      new SqsEventSource(exportQueues.queue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: config.consumerMaxConcurrency,
      }),
    );
    const importConsumer = deploy('ImportConsumerFunction', IMPORT_CONSUMER_FUNCTION);
    importConsumer.function.addEventSource(
      new SqsEventSource(importQueues.queue, {
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: config.consumerMaxConcurrency,
      }),
    );
    noticeUploads(files.bucket, importQueues.queue);
    // History and events from the config and migrations tables' streams.
    const publisher = deploy('ChangePublisherFunction', CHANGE_PUBLISHER_FUNCTION);

    // Webhooks: the subscribable events to the webhooks queue, and its dispatcher (infra/webhooks.ts).
    routeEventsToWebhooks(this, this.eventBus, webhookQueues);
    const dispatcher = deploy('WebhookDispatcherFunction', WEBHOOK_DISPATCHER_FUNCTION);
    consumeWebhooks(dispatcher.function, webhookQueues, config.consumerMaxConcurrency);

    this.functions = {
      ...routeFunctions,
      ...publicFunctions,
      NotFound: notFound,
      MigrationConsumer: consumer,
      MigrationSweeper: sweeper,
      ErasureConsumer: erasureConsumer,
      ExportConsumer: exportConsumer,
      ImportConsumer: importConsumer,
      ChangePublisher: publisher,
      WebhookDispatcher: dispatcher,
    };

    const { api, stage } = createHttpApi(this, { config, removalPolicy, notFound, routeFunctions, publicFunctions });
    this.api = api;
    this.stage = stage;
    watchService(this, {
      config,
      removalPolicy,
      migrationQueues: { queue, deadLetterQueue },
      erasureQueues,
      webhookQueues,
      exportQueues,
      importQueues,
      publisherFailures,
      functions: this.functions,
      api: this.api,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'ConfigTableName', { value: tables.config.table.tableName });
    new CfnOutput(this, 'MigrationsTableName', { value: tables.migrations.table.tableName });
    new CfnOutput(this, 'CredentialsTableName', {
      value: tables.credentials.table.tableName,
      description: 'Pass to `npm run credentials -- create --table`',
    });
    new CfnOutput(this, 'MigrationQueueUrl', { value: queue.queueUrl });
    new CfnOutput(this, 'MigrationDeadLetterQueueUrl', { value: deadLetterQueue.queueUrl });
    new CfnOutput(this, 'HistoryTableName', { value: tables.history.table.tableName });
    new CfnOutput(this, 'ErasureQueueUrl', { value: erasureQueues.queue.queueUrl });
    new CfnOutput(this, 'ExportQueueUrl', { value: exportQueues.queue.queueUrl });
    new CfnOutput(this, 'ImportQueueUrl', { value: importQueues.queue.queueUrl });
    new CfnOutput(this, 'ErasureDeadLetterQueueUrl', { value: erasureQueues.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'WebhookQueueUrl', { value: webhookQueues.queue.queueUrl });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', { value: webhookQueues.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'ChangePublisherFailureQueueUrl', { value: publisherFailures.queueUrl });
    new CfnOutput(this, 'LinkKeysSecretArn', {
      value: linkKeys.secretArn,
      description: 'The keys of the links in emails: pass to `npm run link-keys -- --secret-id`',
    });
    new CfnOutput(this, 'FilesBucketName', { value: files.bucket.bucketName });
    new CfnOutput(this, 'EventBusName', {
      value: this.eventBus.eventBusName,
      description: 'Where the service publishes its events (source notification-preferences)',
    });
  }
}

/** The id of the first link key, which Secrets Manager generates when the stack is created. */
export const INITIAL_LINK_KEY_ID = 'k1';
