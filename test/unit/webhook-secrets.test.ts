import { describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { deriveKeyring, newKeyMaterial, newKeyringDocument } from '#shared/links/keyring.js';
import { newSecret, openSecret, SecretUnreadableError, sealSecret, signatureHeader } from '#shared/webhooks/secrets.js';

describe('webhook secrets', () => {
  test('a secret is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  test('sealed, it shows nothing of the secret and opens only for its own endpoint', () => {
    const keyring = deriveKeyring(newKeyringDocument());
    const secret = newSecret();
    const sealed = sealSecret(secret, 'acme', 'ep_aaaaaaaaaaaaaaaa', keyring);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(sealed.startsWith('k1.')).toBe(true);
    expect(openSecret(sealed, 'acme', 'ep_aaaaaaaaaaaaaaaa', keyring)).toBe(secret);
    expect(() => openSecret(sealed, 'acme', 'ep_bbbbbbbbbbbbbbbb', keyring)).toThrow(SecretUnreadableError);
    expect(() => openSecret(sealed, 'other', 'ep_aaaaaaaaaaaaaaaa', keyring)).toThrow(SecretUnreadableError);
    const otherKeys = deriveKeyring({ current: 'k1', keys: { k1: newKeyMaterial() }, retireAfter: {} });
    expect(() => openSecret(sealed, 'acme', 'ep_aaaaaaaaaaaaaaaa', otherKeys)).toThrow(SecretUnreadableError);
  });

  test('a sealed secret still opens after the link keys rotate (by its key id)', () => {
    const first = newKeyringDocument('k1');
    const sealed = sealSecret('whsec_x', 'acme', 'ep_aaaaaaaaaaaaaaaa', deriveKeyring(first));
    const rotated = deriveKeyring({ current: 'k2', keys: { ...first.keys, k2: newKeyMaterial() }, retireAfter: {} });
    expect(openSecret(sealed, 'acme', 'ep_aaaaaaaaaaaaaaaa', rotated)).toBe('whsec_x');
  });

  test('each signature of the header verifies with the official Standard Webhooks library', () => {
    const [one, two] = [newSecret(), newSecret()];
    const body = JSON.stringify({
      type: 'preference.changed',
      timestamp: '2026-12-07T10:00:00.000Z',
      data: { id: 'c1' },
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signatureHeader([one as string, two as string], 'c1', timestamp, body);
    expect(header.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'c1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header };
    expect(new Webhook(one as string).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(two as string).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(one as string).verify(`${body} `, headers)).toThrow();
  });
});
