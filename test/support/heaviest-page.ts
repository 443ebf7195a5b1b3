import type { LinkState } from '#shared/links/link-state.js';
import type { OpenedLink } from '#shared/links/model.js';
import { brandOf, type PageBrand } from '#shared/links/pages/brand.js';
import type { Policy } from '#shared/policy/model.js';
import type { Schedule } from '#shared/schedules/schema.js';

/*
 * The heaviest preference page of section 4 (a policy of ten categories, seven quiet-hours rules,
 * a snooze and a digest), branded at branding/set's limits: the unit test holds its size under
 * 40 KB, the bench measures its render.
 */

export const HEAVIEST_AT = new Date('2026-03-01T10:00:00Z');

export const heaviestPolicy = (categories: number): Policy => ({
  channels: { slack: { value: 'MINE' } },
  categories: Object.fromEntries(
    Array.from({ length: categories }, (_, i) => [
      `category-${i}`,
      {
        label: `Category ${i}: what happens in your documents`,
        description:
          'A sentence or two that tells the people who get these notifications what they are about, and why they might want them.',
        channels: { email: { value: 'ALL', ...(i === 0 ? { locked: true as const } : {}) }, inbox: { value: 'MINE' } },
      },
    ]),
  ),
});

export const largestSchedule: Schedule = {
  timeZone: 'America/Argentina/ComodRivadavia',
  quietHours: Array.from({ length: 7 }, (_, i) => ({
    days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
    start: `${12 + i}:00`,
    end: `${12 + i}:30`,
    channels: ['inbox', 'email', 'slack'],
  })),
  snoozeUntil: '2026-03-20T10:00:00.000Z',
  digest: { channels: ['inbox', 'email', 'slack'], cadence: 'weekly', at: '08:00', day: 'wed' },
};

/** The opened link and the state its page shows: the heaviest policy, the largest schedule. */
export const heaviestLinkState = (categories: number): { link: OpenedLink; state: LinkState } => {
  const entry = (documentId: string | null) => ({
    organizationId: 'org',
    userId: 'u',
    documentId,
    scope: documentId === null ? ('organization' as const) : ('document' as const),
    config: { email: 'MINE' as const },
    updatedAt: HEAVIEST_AT.toISOString(),
    updatedBy: 'k',
    version: 1,
  });
  const link: OpenedLink = {
    organizationId: 'org',
    userId: 'u',
    documentId: 'doc-l',
    category: 'category-3',
    channel: 'email',
    issuedAt: 0,
    expiresAt: 2e9,
    keyId: 'k1',
  };
  const state: LinkState = {
    documentId: 'doc-l',
    policy: { organizationId: 'org', policy: heaviestPolicy(categories), version: 1 },
    organization: { ...entry(null), schedule: largestSchedule },
    document: entry('doc-l'),
  };
  return { link, state };
};

/**
 * The largest branding a page shows (branding/set's limits): a name of 100 characters, long
 * support and privacy URLs, ten embed origins (the preference page's script names them all); the
 * logo is a URL in the page, its bytes apart.
 */
export const heaviestBranding = {
  displayName: 'D'.repeat(100),
  accentColor: '#0b5cad',
  supportUrl: `https://help.example/${'s'.repeat(200)}`,
  privacyUrl: `https://example.com/${'p'.repeat(200)}`,
  embedOrigins: Array.from({ length: 10 }, (_, n) => `https://app-${n}.customer.example`),
};

/** heaviestBranding as the page shows it. */
export const heaviestBrand = {
  ...brandOf({ branding: heaviestBranding }),
  logoUrl: '?logo=0123456789abcdef',
} as PageBrand;
