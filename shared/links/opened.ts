import type { KeyringSource, LinkKey } from './keyring.js';
import type { LinkState, LinkStateReader, Wanted } from './link-state.js';
import type { OpenedLink } from './model.js';
import { openLink } from './token.js';

/**
 * A link from its token, with its state: undefined for every kind of failure alike (malformed,
 * altered, unknown key, expired, revoked), which the page answers with its one 404 page. The
 * token is checked before anything is read; the state costs one read (link-state.ts).
 */
export const openWithState = async (
  { keys, reader }: { keys: KeyringSource; reader: LinkStateReader },
  token: string,
  now: Date,
  wanted: Wanted,
): Promise<{ link: OpenedLink; key: LinkKey; state: LinkState } | undefined> => {
  const keyring = await keys.keyring();
  const link = await openLink(token, keyring, now);
  const key = link && keyring.byId.get(link.keyId);
  if (!link || !key) return undefined;
  const state = await reader.read(link, key, wanted);
  return state && { link, key, state };
};
