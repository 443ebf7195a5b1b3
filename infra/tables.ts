import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLES, type TableDefinition, type TableName } from '#shared/deployment/tables.js';
import type { BoundTable } from './constructs/service-function.js';

/**
 * Creates the three tables of shared/deployment/tables.ts in `scope`: on-demand capacity, point-in-time
 * recovery, and encryption with the AWS managed key (aws/dynamodb). That key is auditable in
 * CloudTrail and costs nothing; a customer managed key would add a key policy to maintain and
 * KMS permissions to every function, for control the service does not need (no cross-account
 * access, no crypto-shredding requirement).
 *
 * `protectData` (production): tables are retained on stack deletion and refuse DeleteTable.
 */
export const createServiceTables = (scope: Construct, protectData: boolean): Record<TableName, BoundTable> => {
  const create = (definition: TableDefinition): BoundTable => ({
    env: definition.env,
    table: new Table(scope, definition.id, {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      ...(definition.sortKey ? { sortKey: { name: definition.sortKey, type: AttributeType.STRING } } : {}),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: protectData,
      removalPolicy: protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    }),
  });
  return {
    config: create(TABLES.config),
    migrations: create(TABLES.migrations),
    credentials: create(TABLES.credentials),
  };
};
