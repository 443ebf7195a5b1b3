import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Credential } from './credential.js';
import type { CredentialStore } from './store.js';

/** Credentials table: partition key `apiKey`; the item is the credential record. */
export class DynamoCredentialStore implements CredentialStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async get(apiKey: string): Promise<Credential | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { apiKey } }));
    return Item as Credential | undefined;
  }

  async create(credential: Credential): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: credential,
        ConditionExpression: 'attribute_not_exists(apiKey)',
      }),
    );
  }

  /** An operator tool: the credentials table is small, so a Scan is the right call here. */
  async list(): Promise<Credential[]> {
    const credentials: Credential[] = [];
    for await (const page of paginateScan({ client: this.client }, { TableName: this.tableName })) {
      credentials.push(...((page.Items ?? []) as Credential[]));
    }
    return credentials.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async revoke(apiKey: string, revokedAt: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { apiKey },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(apiKey)',
          ExpressionAttributeValues: { ':at': revokedAt },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
