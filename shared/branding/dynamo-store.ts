import { createHash } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { brandingKey } from './keys.js';
import { type Branding, orderedBranding, type StoredBranding } from './model.js';
import type { BrandingStore } from './store.js';

/** A branding item of the config table as the domain sees it (also read by a link's page, in its one batched read). */
export const brandingFromItem = (item: Record<string, unknown> | undefined): StoredBranding | undefined => {
  if (!item || typeof item.branding !== 'object' || item.branding === null) return undefined;
  return {
    branding: orderedBranding(item.branding as Branding),
    ...(typeof item.logoVersion === 'string' ? { logoVersion: item.logoVersion } : {}),
  };
};

/** A digest of the logo's bytes: its URL changes with it, so that a page may keep it long. */
const logoVersionOf = (branding: Branding): string | undefined =>
  branding.logo &&
  createHash('sha256').update(Buffer.from(branding.logo.data, 'base64')).digest('base64url').slice(0, 16);

export class DynamoBrandingStore implements BrandingStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async get(organizationId: string): Promise<StoredBranding | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: brandingKey(organizationId), ConsistentRead: true }),
    );
    return brandingFromItem(Item);
  }

  async put(
    organizationId: string,
    branding: Branding,
    { updatedAt, updatedBy }: { updatedAt: string; updatedBy: string },
  ): Promise<void> {
    const logoVersion = logoVersionOf(branding);
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...brandingKey(organizationId),
          organizationId,
          branding,
          ...(logoVersion ? { logoVersion } : {}),
          updatedAt,
          updatedBy,
        },
      }),
    );
  }

  async remove(organizationId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: brandingKey(organizationId) }));
  }
}
