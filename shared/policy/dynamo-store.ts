import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CATEGORY_ORDER, categoryOrderOf, policyOfItem } from './item.js';
import { policyKey } from './keys.js';
import { noPolicy, type Policy, type StoredPolicy } from './model.js';
import { type PolicyStore, VersionConflict } from './store.js';

/** A policy item of the config table as the domain sees it (also read by a link's page, in its one batched read). */
export const policyFromItem = (organizationId: string, item: Record<string, unknown> | undefined): StoredPolicy => {
  if (!item) return noPolicy(organizationId);
  return {
    organizationId,
    policy: policyOfItem(item),
    version: Number(item.version),
    ...(typeof item.updatedAt === 'string' ? { updatedAt: item.updatedAt } : {}),
    ...(typeof item.updatedBy === 'string' ? { updatedBy: item.updatedBy } : {}),
  };
};

export class DynamoPolicyStore implements PolicyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async get(organizationId: string): Promise<StoredPolicy> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: policyKey(organizationId), ConsistentRead: true }),
    );
    return policyFromItem(organizationId, Item);
  }

  async put(
    organizationId: string,
    policy: Policy,
    { updatedAt, updatedBy }: { updatedAt: string; updatedBy: string },
    expectedVersion?: number,
  ): Promise<{ version: number; updatedAt: string }> {
    const condition =
      expectedVersion === undefined
        ? {}
        : expectedVersion === 0
          ? { ConditionExpression: 'attribute_not_exists(version)' }
          : { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } };
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: policyKey(organizationId),
          UpdateExpression:
            'SET policy = :policy, #order = :order, organizationId = :org, updatedAt = :at, updatedBy = :by, version = if_not_exists(version, :zero) + :one',
          ...condition,
          ExpressionAttributeNames: { '#order': CATEGORY_ORDER },
          ExpressionAttributeValues: {
            ...condition.ExpressionAttributeValues,
            ':policy': policy,
            ':order': categoryOrderOf(policy),
            ':org': organizationId,
            ':at': updatedAt,
            ':by': updatedBy,
            ':zero': 0,
            ':one': 1,
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { version: Number(Attributes?.version), updatedAt };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        const current = error.Item?.version as { N?: string } | undefined;
        throw new VersionConflict(Number(current?.N ?? 0));
      }
      throw error;
    }
  }
}
