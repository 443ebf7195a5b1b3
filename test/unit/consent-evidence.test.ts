import { describe, expect, test } from '@jest/globals';
import { apiEvidence, textSha256 } from '#shared/consent/consent.js';
import { linkEvidence, pageVersion } from '#shared/links/evidence.js';
import type { OpenedLink } from '#shared/links/model.js';

const link: OpenedLink = {
  organizationId: 'o',
  userId: 'u',
  channel: 'email',
  issuedAt: 1_780_000_000,
  expiresAt: 1_790_000_000,
  keyId: 'k7',
};
const client = { ipAddress: '192.0.2.7', userAgent: 'Mail/1.0' };

describe('the evidence of a change made from a link', () => {
  test('the key id, the issue time, the page version and the client, as the edge received it', () => {
    expect(linkEvidence({ page: 'page', link, locale: 'en', form: 'f', client, keepClient: true })).toEqual({
      via: 'page',
      keyId: 'k7',
      issuedAt: new Date(1_780_000_000_000).toISOString(),
      pageVersion: pageVersion('page', 'en', 'f'),
      ...client,
    });
  });

  test('the deployment setting off: neither the address nor the user agent', () => {
    const evidence = linkEvidence({ page: 'link', link, locale: 'en', form: 'f', client, keepClient: false });
    expect(evidence).not.toHaveProperty('ipAddress');
    expect(evidence).not.toHaveProperty('userAgent');
  });

  test('the page version changes with the words (the language) and with the form, and only with them', () => {
    expect(pageVersion('page', 'en', 'f')).toBe(pageVersion('page', 'en', 'f'));
    expect(pageVersion('page', 'de', 'f')).not.toBe(pageVersion('page', 'en', 'f'));
    expect(pageVersion('page', 'en', 'g')).not.toBe(pageVersion('page', 'en', 'f'));
    expect(pageVersion('link', 'en', 'f')).not.toBe(pageVersion('page', 'en', 'f'));
  });
});

describe('the evidence of an API change', () => {
  const now = new Date('2026-06-01T12:00:00.000Z');
  test('without a consent: via api alone; with one, its fields, the text by its SHA-256, capturedAt defaulting to the request', () => {
    expect(apiEvidence(undefined, now)).toEqual({ via: 'api' });
    expect(apiEvidence({ source: 'settings', text: 'Yes.' }, now)).toEqual({
      via: 'api',
      source: 'settings',
      capturedAt: now.toISOString(),
      textSha256: textSha256('Yes.'),
    });
    expect(textSha256('Yes.')).toMatch(/^[0-9a-f]{64}$/);
  });

  test('capturedAt: up to 90 days old, never in the future', () => {
    const ago = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60 * 1000).toISOString();
    expect(apiEvidence({ source: 's', capturedAt: ago(90) }, now).capturedAt).toBe(ago(90));
    expect(() => apiEvidence({ source: 's', capturedAt: ago(90.01) }, now)).toThrow(/at most 90 days ago/);
    expect(() => apiEvidence({ source: 's', capturedAt: '2026-06-01T12:00:01Z' }, now)).toThrow(/future/);
  });
});
