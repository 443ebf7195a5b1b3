/*
 * Who changed a config entry and why, stored on the entry by every write so that the table's
 * change stream (shared/history/) can tell it from the item alone, never from a second write.
 *
 * A delete carries no attributes, and the stream's record of it only has the item as it was.
 * So a delete that changes what a reader sees (a migration deleting a source entry it copied,
 * an erasure) first stamps the entry with its cause in a conditional update that changes no
 * channel (the stream skips it), then deletes it only while that stamp is still there. The only
 * other deletes are a reset's delete of an organization-level entry it has just emptied and
 * DynamoDB's expiry of a tombstone: both remove an entry without channels, which is no change
 * of a channel value and appears nowhere.
 */

import { EVIDENCE_ATTRIBUTE, type Evidence, impliedEvidence } from '#shared/consent/evidence.js';

export const CHANGE_CAUSES = ['set', 'reset', 'migration', 'erasure', 'link', 'import'] as const;
export type ChangeCause = (typeof CHANGE_CAUSES)[number];

export interface ChangeAttribution {
  cause: ChangeCause;
  /** The api key for set and reset, `migration:<migrationId>`, `erasure:<erasureId>` or `link:<keyId>`. */
  changedBy: string;
  /** ISO-8601 time of the change: the request's time for set and reset, the worker's clock otherwise. */
  changedAt: string;
  /** How the change was made (shared/consent/evidence.ts); absent: what cause and actor imply. */
  evidence?: Evidence | undefined;
}

/** The item attributes that hold the attribution. */
export const ATTRIBUTION_ATTRIBUTES = {
  cause: 'changeCause',
  changedBy: 'changedBy',
  changedAt: 'changedAt',
} as const;

export const migrationActor = (migrationId: string): string => `migration:${migrationId}`;
export const erasureActor = (erasureId: string): string => `erasure:${erasureId}`;
export const linkActor = (keyId: string): string => `link:${keyId}`;
export const importActor = (importId: string): string => `import:${importId}`;

/**
 * The attributes as stored on an item. Every write sets all four, the evidence included, so that
 * an item never shows the evidence of an earlier write beside the attribution of a later one.
 */
export const attributionItem = (change: ChangeAttribution): Record<string, string> => ({
  [ATTRIBUTION_ATTRIBUTES.cause]: change.cause,
  [ATTRIBUTION_ATTRIBUTES.changedBy]: change.changedBy,
  [ATTRIBUTION_ATTRIBUTES.changedAt]: change.changedAt,
  [EVIDENCE_ATTRIBUTE]: JSON.stringify(change.evidence ?? impliedEvidence(change.cause, change.changedBy)),
});
