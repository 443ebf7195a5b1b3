import { type CfnResource, RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLES, type TableDefinition, type TableName } from '#service/tables.js';
import type { BoundTable } from './constructs/service-function.js';

/**
 * CloudFormation logical ids of the tables, as first deployed. A new logical id makes
 * CloudFormation create a new, empty table (and delete or orphan the old one): moving the
 * constructs in the tree must not change them.
 */
export const TABLE_LOGICAL_IDS: Record<TableName, string> = {
  config: 'ConfigTable5CD72349',
  migrations: 'MigrationsTable97ED8188',
  credentials: 'CredentialsTableD9D3F717',
  history: 'HistoryTable8F2A5C31',
  limits: 'RateLimitsTable',
};

/**
 * Creates the tables of service/tables.ts in `scope` (with their indexes and streams): on-demand capacity, point-in-time
 * recovery, and encryption with the AWS managed key (aws/dynamodb). That key is auditable in
 * CloudTrail and costs nothing; a customer managed key would add a key policy to maintain and
 * KMS permissions to every function, for control the service does not need (no cross-account
 * access, no crypto-shredding requirement).
 *
 * `protectData`: tables refuse DeleteTable, and survive stack deletion and replacement; a failed
 * first create still removes them (RETAIN_ON_UPDATE_OR_DELETE), so it leaves no orphan that
 * the next attempt would collide with.
 */
export const createServiceTables = (scope: Construct, protectData: boolean): Record<TableName, BoundTable> => {
  const create = (name: TableName, definition: TableDefinition): BoundTable => {
    const table = new Table(scope, definition.id, {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      ...(definition.sortKey ? { sortKey: { name: definition.sortKey, type: AttributeType.STRING } } : {}),
      // Expiring items (reset tombstones, old history) are deleted by DynamoDB, at no cost.
      ...(definition.ttlAttribute ? { timeToLiveAttribute: definition.ttlAttribute } : {}),
      // Read by the change publisher (shared/events/publisher.ts).
      ...(definition.stream ? { stream: StreamViewType[definition.stream] } : {}),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: protectData,
      removalPolicy: protectData ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY,
    });
    for (const index of definition.indexes ?? []) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        ...(index.sortKey ? { sortKey: { name: index.sortKey, type: AttributeType.STRING } } : {}),
        projectionType: ProjectionType[index.projection],
      });
    }
    (table.node.defaultChild as CfnResource).overrideLogicalId(TABLE_LOGICAL_IDS[name]);
    return { env: definition.env, table };
  };
  return {
    config: create('config', TABLES.config),
    migrations: create('migrations', TABLES.migrations),
    credentials: create('credentials', TABLES.credentials),
    history: create('history', TABLES.history),
    limits: create('limits', TABLES.limits),
  };
};
