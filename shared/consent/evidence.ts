import * as z from 'zod/mini';
import { once } from '#shared/platform/once.js';

/*
 * How a change was made (docs/api.md, Consent evidence): taken from the request that made it and
 * stored on the entry by the same write as the change (shared/preferences/change-attribution.ts),
 * so that the change stream carries it to the history and the events. A stored change never
 * lacks it: no second write can fail in between.
 */

export const EVIDENCE_VIAS = ['api', 'link', 'page', 'migration', 'erasure', 'import'] as const;
export type EvidenceVia = (typeof EVIDENCE_VIAS)[number];

/** A change through the API: what the caller stated in `data.consent`, the text by its hash. */
export interface ApiEvidence {
  via: 'api';
  source?: string;
  capturedAt?: string;
  textVersion?: string;
  textSha256?: string;
  ipAddress?: string;
  userAgent?: string;
}

/** A change a person made from a link in an email: the one-click POST (`link`) or the preference page (`page`). */
export interface LinkEvidence {
  via: 'link' | 'page';
  keyId: string;
  /** When the link was made (ISO-8601). */
  issuedAt?: string;
  /** A short hash of the words and form the person saw. */
  pageVersion?: string;
  ipAddress?: string;
  userAgent?: string;
}

/** A change an import made: its id, and what the row stated of its consent (as ApiEvidence does). */
export interface ImportEvidence extends Omit<ApiEvidence, 'via'> {
  via: 'import';
  importId: string;
}

export type JobEvidence =
  | { via: 'migration'; migrationId: string }
  | { via: 'erasure'; erasureId: string }
  | ImportEvidence;

export type Evidence = ApiEvidence | LinkEvidence | JobEvidence;

/** The entry attribute that holds the evidence of its last write, as one JSON string. */
export const EVIDENCE_ATTRIBUTE = 'changeEvidence';

const after = (prefix: string, actor: string): string => actor.slice(prefix.length);

/**
 * The evidence a write that states none carries, from its cause and actor
 * (change-attribution.ts): a job's id, or an API call. A change recorded before evidence
 * existed is read with this too.
 */
export const impliedEvidence = (cause: string, changedBy: string): Evidence => {
  if (cause === 'migration') return { via: 'migration', migrationId: after('migration:', changedBy) };
  if (cause === 'erasure') return { via: 'erasure', erasureId: after('erasure:', changedBy) };
  if (cause === 'import') return { via: 'import', importId: after('import:', changedBy) };
  if (cause === 'link') return { via: 'link', keyId: after('link:', changedBy) };
  return { via: 'api' };
};

/** Every field an evidence may have, in the order answers give them (a stored map keeps none). */
const FIELD_ORDER = [
  'via',
  'source',
  'capturedAt',
  'textVersion',
  'textSha256',
  'keyId',
  'issuedAt',
  'pageVersion',
  'migrationId',
  'erasureId',
  'importId',
  'ipAddress',
  'userAgent',
] as const;

const inOrder = (evidence: Evidence): Evidence => {
  const fields = evidence as unknown as Record<string, unknown>;
  return Object.fromEntries(
    FIELD_ORDER.filter((field) => fields[field] !== undefined).map((field) => [field, fields[field]]),
  ) as unknown as Evidence;
};

/** The evidence stored on an item, or what its attribution implies when it holds none (or an unreadable one). */
export const storedEvidence = (stored: unknown, cause: string, changedBy: string): Evidence => {
  if (typeof stored === 'string') {
    try {
      const parsed = JSON.parse(stored) as unknown;
      if (parsed && typeof parsed === 'object' && EVIDENCE_VIAS.includes((parsed as Evidence).via)) {
        return inOrder(parsed as Evidence);
      }
    } catch {
      // Falls through to the implied evidence.
    }
  }
  if (stored && typeof stored === 'object' && EVIDENCE_VIAS.includes((stored as Evidence).via)) {
    return inOrder(stored as Evidence);
  }
  return impliedEvidence(cause, changedBy);
};

/** The evidence of a change as the history and the events answer it. */
export const evidenceSchema = once(() =>
  z.union([
    z.strictObject({
      via: z.literal('api'),
      source: z.optional(z.string()),
      capturedAt: z.optional(z.string()),
      textVersion: z.optional(z.string()),
      /** The SHA-256 (hex) of the consent text the person was shown; the text is in the export. */
      textSha256: z.optional(z.string()),
      ipAddress: z.optional(z.string()),
      userAgent: z.optional(z.string()),
    }),
    z.strictObject({
      via: z.enum(['link', 'page']),
      keyId: z.string(),
      /** Absent only on changes recorded before evidence existed, as pageVersion. */
      issuedAt: z.optional(z.string()),
      pageVersion: z.optional(z.string()),
      ipAddress: z.optional(z.string()),
      userAgent: z.optional(z.string()),
    }),
    z.strictObject({ via: z.literal('migration'), migrationId: z.string() }),
    z.strictObject({ via: z.literal('erasure'), erasureId: z.string() }),
    z.strictObject({
      via: z.literal('import'),
      importId: z.string(),
      source: z.optional(z.string()),
      capturedAt: z.optional(z.string()),
      textVersion: z.optional(z.string()),
      textSha256: z.optional(z.string()),
      ipAddress: z.optional(z.string()),
      userAgent: z.optional(z.string()),
    }),
  ]),
);
