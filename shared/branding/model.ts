import type { Locale } from '#shared/api/locales.js';

/**
 * An organization's branding (docs/api.md, Branding): what the pages its links open show of it.
 * An organization without one gets the pages as they are without it.
 */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

export interface Logo {
  contentType: LogoType;
  /** The image's bytes in base64. */
  data: string;
}

export interface Branding {
  displayName: string;
  logo?: Logo;
  accentColor?: string;
  defaultLocale?: Locale;
  supportUrl?: string;
  privacyUrl?: string;
  embedOrigins?: string[];
}

/** Branding as stored: with the logo's version, a digest of its bytes that names it in the pages' URLs. */
export interface StoredBranding {
  branding: Branding;
  logoVersion?: string;
}

/** A branding with its fields in one order (DynamoDB keeps a map's keys in none): as set, as answered. */
export const orderedBranding = (branding: Branding): Branding => ({
  displayName: branding.displayName,
  ...(branding.logo ? { logo: { contentType: branding.logo.contentType, data: branding.logo.data } } : {}),
  ...(branding.accentColor === undefined ? {} : { accentColor: branding.accentColor }),
  ...(branding.defaultLocale === undefined ? {} : { defaultLocale: branding.defaultLocale }),
  ...(branding.supportUrl === undefined ? {} : { supportUrl: branding.supportUrl }),
  ...(branding.privacyUrl === undefined ? {} : { privacyUrl: branding.privacyUrl }),
  ...(branding.embedOrigins === undefined ? {} : { embedOrigins: branding.embedOrigins }),
});
