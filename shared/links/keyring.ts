import { hkdfSync, randomBytes } from 'node:crypto';

/*
 * The keys of the links (docs/operations.md, Link keys). One JSON object, the value of a Secrets
 * Manager secret (locally a file of the data directory), every member a string:
 *
 *   "current": "<keyId>"                 the key that seals new links
 *   "key:<keyId>": "<material>"          a key: random text, at least 32 characters
 *   "retire-after:<keyId>": "<ISO time>" when a replaced key may go (its last link has expired)
 *
 * Flat, so that Secrets Manager can generate the first one itself (a template holding `current`,
 * and a generated string under `key:<keyId>`): no key ever passes through the template or a
 * deployment. Each key's material gives four 256-bit keys by HKDF-SHA256: one encrypts the links'
 * tokens (token.ts), one keys the hashes that revoke links (revocation.ts), one seals the cursors
 * of config/history (shared/history/cursor.ts), one seals the webhook endpoints' secrets
 * (shared/webhooks/secrets.ts). A key id is in clear in every token (its `kid`)
 * and cursor, so that a rotation leaves the links already sent working.
 */

export const KEY_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const MIN_MATERIAL_LENGTH = 32;
const CURRENT = 'current';
const KEY_PREFIX = 'key:';
const RETIRE_PREFIX = 'retire-after:';

/** The secret's content, as operators and the rotation command see it. */
export interface KeyringDocument {
  current: string;
  /** Key id -> material. */
  keys: Record<string, string>;
  /** Key id -> the time from which it may be retired (set when another key replaced it). */
  retireAfter: Record<string, string>;
}

export class KeyringError extends Error {
  override readonly name = 'KeyringError';
}

const record = (): Record<string, string> => Object.create(null) as Record<string, string>;

/** Reads the secret's JSON (text or parsed), or throws a KeyringError saying what is wrong (never a key). */
export const parseKeyringDocument = (value: unknown): KeyringDocument => {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new KeyringError('The link keys are not a JSON object.');
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new KeyringError('The link keys are not a JSON object.');
  }
  const keys = record();
  const retireAfter = record();
  let current: string | undefined;
  for (const [name, member] of Object.entries(parsed)) {
    if (typeof member !== 'string')
      throw new KeyringError(`The link keys' member ${JSON.stringify(name)} is not a string.`);
    if (name === CURRENT) {
      current = member;
    } else if (name.startsWith(KEY_PREFIX)) {
      const id = name.slice(KEY_PREFIX.length);
      if (!KEY_ID_PATTERN.test(id)) throw new KeyringError(`Invalid link key id ${JSON.stringify(id)}.`);
      if (member.length < MIN_MATERIAL_LENGTH) {
        throw new KeyringError(`The link key ${id} is shorter than ${MIN_MATERIAL_LENGTH} characters.`);
      }
      keys[id] = member;
    } else if (name.startsWith(RETIRE_PREFIX)) {
      const id = name.slice(RETIRE_PREFIX.length);
      if (Number.isNaN(Date.parse(member))) throw new KeyringError(`The retire-after time of ${id} is not a time.`);
      retireAfter[id] = member;
    } else {
      throw new KeyringError(`Unknown member ${JSON.stringify(name)} in the link keys.`);
    }
  }
  if (current === undefined) throw new KeyringError('The link keys name no current key.');
  if (!(current in keys)) throw new KeyringError(`The current link key ${current} is not among the keys.`);
  for (const id of Object.keys(retireAfter)) {
    if (!(id in keys)) delete retireAfter[id];
  }
  return { current, keys, retireAfter };
};

/** The secret's JSON for a document: `current`, then each key and its retire-after time, by id. */
export const serializeKeyringDocument = ({ current, keys, retireAfter }: KeyringDocument): string => {
  const members: Record<string, string> = { [CURRENT]: current };
  for (const id of Object.keys(keys).sort()) {
    members[`${KEY_PREFIX}${id}`] = keys[id] as string;
    if (retireAfter[id]) members[`${RETIRE_PREFIX}${id}`] = retireAfter[id];
  }
  return JSON.stringify(members);
};

/** A fresh key's material: 256 random bits, base64url. */
export const newKeyMaterial = (): string => randomBytes(32).toString('base64url');

/** A new keyring of one key (the local twin's first, and tests'). */
export const newKeyringDocument = (id = 'k1'): KeyringDocument => ({
  current: id,
  keys: { [id]: newKeyMaterial() },
  retireAfter: {},
});

/** One key, as the code uses it: its id and the two keys derived from its material. */
export interface LinkKey {
  id: string;
  /** AES-256-GCM key of the tokens it seals. */
  encryption: Uint8Array;
  /** HMAC-SHA256 key of the revocation hashes (revocation.ts). */
  revocation: Uint8Array;
  /** AES-256-GCM key of config/history's cursors (shared/history/cursor.ts). */
  historyCursor: Uint8Array;
  /** AES-256-GCM key of the webhook endpoints' secrets (shared/webhooks/secrets.ts). */
  webhookSecret: Uint8Array;
}

export interface Keyring {
  current: LinkKey;
  byId: ReadonlyMap<string, LinkKey>;
}

const derive = (material: string, purpose: string, id: string): Uint8Array =>
  new Uint8Array(
    hkdfSync('sha256', Buffer.from(material, 'utf8'), Buffer.alloc(0), `notification-preferences ${purpose} ${id}`, 32),
  );

export const deriveKeyring = (document: KeyringDocument): Keyring => {
  const byId = new Map<string, LinkKey>();
  for (const [id, material] of Object.entries(document.keys)) {
    byId.set(id, {
      id,
      encryption: derive(material, 'link-token', id),
      revocation: derive(material, 'link-revocation', id),
      historyCursor: derive(material, 'history-cursor', id),
      webhookSecret: derive(material, 'webhook-secret', id),
    });
  }
  return { current: byId.get(document.current) as LinkKey, byId };
};

/** Where the functions get the keys from: the secret through Powertools Parameters (secret-keyring.ts), or a test's. */
export interface KeyringSource {
  keyring(): Promise<Keyring>;
}

/** A fixed keyring (tests, tools). */
export const staticKeyring = (document: KeyringDocument): KeyringSource => {
  const keyring = deriveKeyring(document);
  return { keyring: async () => keyring };
};
