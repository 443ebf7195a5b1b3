import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { brandingFromItem } from '#shared/branding/dynamo-store.js';
import { brandingKey } from '#shared/branding/keys.js';
import type { StoredBranding } from '#shared/branding/model.js';
import { drainWithBackoff } from '#shared/platform/backoff.js';
import { UnprocessedItemsError } from '#shared/platform/dependency-errors.js';
import { isItemAt, type TableKey } from '#shared/platform/key-parts.js';
import { policyFromItem } from '#shared/policy/dynamo-store.js';
import { policyKey } from '#shared/policy/keys.js';
import type { StoredPolicy } from '#shared/policy/model.js';
import { itemToEntry } from '#shared/preferences/entry-item.js';
import { entryTableKey } from '#shared/preferences/keys.js';
import type { EntryKey, StoredEntry } from '#shared/preferences/model.js';
import { isTombstone } from '#shared/preferences/tombstone.js';
import { type Forward, followsOn, forwardKey, forwardOf, MAX_FORWARD_HOPS } from './forwarding.js';
import type { LinkKey } from './keyring.js';
import type { OpenedLink } from './model.js';
import { isRevoked, revocationKey } from './revocation.js';

/*
 * Everything a link's page needs, in one read (docs/design.md, A link's one read): a single
 * BatchGetItem over the config table (the link's revocation item, the organization's policy and
 * branding and, when the page shows them, the user's organization-level and document entries) and the
 * migrations table (the forwarding record of the link's document). Only a document that was
 * migrated costs more: one BatchGetItem per hop, for the next forwarding record and the entry
 * under the new id.
 */

/** What a page needs of the state beyond the revocation and the policy. */
export interface Wanted {
  /** The user's organization-level and document entries. */
  entries: boolean;
}

export interface LinkState {
  /** The document the link acts on: its own, or where its migrations led (none for an organization-level link). */
  documentId?: string;
  policy: StoredPolicy;
  /** The organization's branding, if it has one. */
  branding?: StoredBranding;
  organization?: StoredEntry;
  document?: StoredEntry;
}

/** Reads a link's state; undefined when the link is revoked (by links/revoke or an erasure). */
export interface LinkStateReader {
  read(link: OpenedLink, key: LinkKey, wanted: Wanted): Promise<LinkState | undefined>;
}

type Item = Record<string, unknown>;

export class DynamoLinkStateReader implements LinkStateReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly configTable: string,
    private readonly migrationsTable: string,
  ) {}

  /** One BatchGetItem (and its retries of unprocessed keys, under throttling only): every item found, per table. */
  private async batchGet(config: TableKey[], migrations: TableKey[]): Promise<{ config: Item[]; migrations: Item[] }> {
    const found = { config: [] as Item[], migrations: [] as Item[] };
    const initial: Record<string, { Keys: TableKey[]; ConsistentRead: true }> = {};
    if (config.length) initial[this.configTable] = { Keys: config, ConsistentRead: true };
    if (migrations.length) initial[this.migrationsTable] = { Keys: migrations, ConsistentRead: true };
    const left = await drainWithBackoff(initial as Record<string, unknown>, async (RequestItems) => {
      const output = await this.client.send(
        new BatchGetCommand({ RequestItems: RequestItems as Record<string, { Keys: TableKey[] }> }),
      );
      found.config.push(...(output.Responses?.[this.configTable] ?? []));
      found.migrations.push(...(output.Responses?.[this.migrationsTable] ?? []));
      const unprocessed = output.UnprocessedKeys;
      return unprocessed && Object.keys(unprocessed).length > 0 ? unprocessed : undefined;
    });
    if (left) throw new UnprocessedItemsError('Some keys of a link page stayed unprocessed');
    return found;
  }

  async read(link: OpenedLink, key: LinkKey, { entries }: Wanted): Promise<LinkState | undefined> {
    const { organizationId, userId } = link;
    const revocation = revocationKey(key, organizationId, userId);
    const policy = policyKey(organizationId);
    const branding = brandingKey(organizationId);
    const organizationEntry: EntryKey = { organizationId, userId, documentId: null };
    const documentEntry = (documentId: string): EntryKey => ({ organizationId, userId, documentId });
    const entryOf = (items: Item[], entryKey: EntryKey): StoredEntry | undefined => {
      const item = items.find((found) => isItemAt(found, entryTableKey(entryKey)));
      const entry = item && itemToEntry(item);
      return entry && !isTombstone(entry) ? entry : undefined;
    };

    let documentId = link.documentId;
    const first = await this.batchGet(
      [
        revocation,
        policy,
        branding,
        ...(entries ? [entryTableKey(organizationEntry)] : []),
        ...(entries && documentId !== undefined ? [entryTableKey(documentEntry(documentId))] : []),
      ],
      documentId === undefined ? [] : [forwardKey(organizationId, documentId)],
    );
    if (
      isRevoked(
        link,
        first.config.find((item) => isItemAt(item, revocation)),
      )
    )
      return undefined;
    const state: LinkState = {
      policy: policyFromItem(
        organizationId,
        first.config.find((item) => isItemAt(item, policy)),
      ),
    };
    const brand = brandingFromItem(first.config.find((item) => isItemAt(item, branding)));
    if (brand) state.branding = brand;
    if (entries) {
      const organization = entryOf(first.config, organizationEntry);
      if (organization) state.organization = organization;
    }
    if (documentId === undefined) return state;

    // Follow the document's migrations, one read per hop.
    let items = first;
    let previous: Forward | undefined;
    for (let hop = 0; hop < MAX_FORWARD_HOPS; hop++) {
      const next = forwardOf(
        items.migrations.find((item) => isItemAt(item, forwardKey(organizationId, documentId as string))),
      );
      if (!followsOn(next, previous)) break;
      previous = next;
      documentId = next.newDocumentId;
      items = await this.batchGet(entries ? [entryTableKey(documentEntry(documentId))] : [], [
        forwardKey(organizationId, documentId),
      ]);
    }
    state.documentId = documentId;
    if (entries) {
      const document = entryOf(items.config, documentEntry(documentId));
      if (document) state.document = document;
    }
    return state;
  }
}
