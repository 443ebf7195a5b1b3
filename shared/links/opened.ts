import { randomUUID } from 'node:crypto';
import type { KeyringSource, LinkKey } from './keyring.js';
import type { LinkState, LinkStateReader, Wanted } from './link-state.js';
import type { LinkPurpose, OpenedLink } from './model.js';
import { isOpen, isWellFormedToken, unsealLink } from './token.js';

// A link of no organization, user or document that exists (fresh per process): what a token that
// does not unseal reads, so that it costs what any other token costs.
const DECOY = randomUUID();
const decoyLink = (keyId: string): OpenedLink => ({
  keyId,
  organizationId: DECOY,
  userId: DECOY,
  documentId: DECOY,
  channel: 'email',
  issuedAt: 0,
  expiresAt: 0,
});

/**
 * A link from its token, for `purpose`'s page, with its state: undefined for every kind of
 * failure alike (malformed, altered, unknown key, expired, another page's, revoked), which the
 * page answers with its one 404 page. Every well-formed token costs the same work whatever its
 * fate, so that timing tells nothing either: it is unsealed, its state read (one read,
 * link-state.ts: a decoy's for a token that does not unseal, whose read finds nothing), and only
 * then are its times, purpose and revocation judged.
 */
export const openWithState = async (
  { keys, reader }: { keys: KeyringSource; reader: LinkStateReader },
  token: string,
  now: Date,
  wanted: Wanted,
  purpose: LinkPurpose,
): Promise<{ link: OpenedLink; key: LinkKey; state: LinkState } | undefined> => {
  if (!isWellFormedToken(token)) return undefined;
  const keyring = await keys.keyring();
  const link = await unsealLink(token, keyring);
  const key = link && keyring.byId.get(link.keyId);
  const state = await reader.read(link && key ? link : decoyLink(keyring.current.id), key ?? keyring.current, wanted);
  if (!link || !key || !state || !isOpen(link, now, purpose)) return undefined;
  return { link, key, state };
};
