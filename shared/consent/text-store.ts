import { BatchGetCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { drainWithBackoff } from '#shared/platform/backoff.js';
import { chunkStarts } from '#shared/platform/chunks.js';
import { conditional } from '#shared/platform/conditional-write.js';
import { UnprocessedItemsError } from '#shared/platform/dependency-errors.js';
import { escapeKeyPart, type TableKey } from '#shared/platform/key-parts.js';
import type { StoreAccess } from '#shared/platform/route.js';

/*
 * The consent texts of an organization (docs/api.md, Consent evidence), in the config table, each
 * stored once and addressed by its SHA-256 (hex):
 *
 *   consent text   pk = CONSENT#<org>   sk = <sha256>   text, storedAt
 *
 * No entry's partition starts with `CONSENT#`, and the item has no userId: the user index an
 * erasure reads never finds it (texts are the organization's words, and an erasure leaves them),
 * and the change stream records nothing of it.
 */

export const consentTextKey = (organizationId: string, sha256: string): TableKey => ({
  pk: `CONSENT#${escapeKeyPart(organizationId)}`,
  sk: sha256,
});

export interface ConsentTextStore {
  /** Stores a text under its hash unless it is there already (a text never changes). */
  putText(organizationId: string, sha256: string, text: string, storedAt: string): Promise<void>;
  /** The texts of these hashes that are stored, by hash. */
  getTexts(organizationId: string, hashes: readonly string[]): Promise<Map<string, string>>;
}

export const CONSENT_TEXT_STORE_GRANTS = {
  putText: { tables: { config: ['PutItem'] } },
  getTexts: { tables: { config: ['BatchGetItem'] } },
} as const satisfies Record<keyof ConsentTextStore, StoreAccess>;

const BATCH_GET_LIMIT = 100;
/** The texts a warm function remembers having stored: a bound on its memory, not on correctness. */
const REMEMBERED_TEXTS = 1_000;

type KeysAndAttributes = { Keys: TableKey[]; ConsistentRead: boolean };

export class DynamoConsentTextStore implements ConsentTextStore {
  /**
   * Texts this instance stored or found stored, by organization and hash (and one in flight
   * while its put runs): a request repeating a known text costs no write call.
   */
  private readonly stored = new Map<string, Promise<void>>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  putText(organizationId: string, sha256: string, text: string, storedAt: string): Promise<void> {
    const id = JSON.stringify([organizationId, sha256]);
    const known = this.stored.get(id);
    if (known) return known;
    const put = conditional(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...consentTextKey(organizationId, sha256), text, storedAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).then(() => undefined);
    if (this.stored.size >= REMEMBERED_TEXTS) this.stored.clear();
    this.stored.set(id, put);
    // A put that failed is tried again by the next request that states the text.
    put.catch(() => this.stored.delete(id));
    return put;
  }

  async getTexts(organizationId: string, hashes: readonly string[]): Promise<Map<string, string>> {
    const keys = [...new Set(hashes)].map((hash) => consentTextKey(organizationId, hash));
    const found = new Map<string, string>();
    for (const start of chunkStarts(keys.length, BATCH_GET_LIMIT)) {
      const unprocessed = await drainWithBackoff<KeysAndAttributes>(
        { Keys: keys.slice(start, start + BATCH_GET_LIMIT), ConsistentRead: true },
        async (request) => {
          const output = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: request } }));
          for (const item of output.Responses?.[this.tableName] ?? []) {
            if (typeof item.text === 'string') found.set(String(item.sk), item.text);
          }
          const rest = output.UnprocessedKeys?.[this.tableName] as KeysAndAttributes | undefined;
          return rest?.Keys?.length ? rest : undefined;
        },
      );
      if (unprocessed) throw new UnprocessedItemsError(`${unprocessed.Keys.length} consent texts left unread`);
    }
    return found;
  }
}
