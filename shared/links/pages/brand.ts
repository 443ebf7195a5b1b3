import { createHash } from 'node:crypto';
import type { StoredBranding } from '#shared/branding/model.js';
import type { Words } from '../i18n/words.js';
import { constant, type Html, html, toText } from './html.js';

/*
 * What a page shows of its organization's branding (docs/api.md, branding/set): the name beside
 * the page's title and above its heading, the logo (from the page's own route: `?logo=<version>`,
 * so that the page loads nothing from elsewhere), the accent colour of links and buttons, and the
 * support and privacy links at its foot. A page without a branding is the page as it always was:
 * none of this is in it, and its headers are the pages' own.
 */

export interface PageBrand {
  displayName: string;
  /** The logo's URL, relative to the page. */
  logoUrl?: string;
  accentColor?: string;
  supportUrl?: string;
  privacyUrl?: string;
}

/**
 * An organization's name inside a sentence, isolated (FSI ... PDI): a name in another direction
 * than the page's keeps the sentence's punctuation where it belongs. branding/set refuses these
 * characters in the name itself, so these are the only ones.
 */
export const isolated = (name: string): string => `\u2068${name}\u2069`;

/** The query parameter of a page's URL that asks for its logo; its value is the logo's version. */
export const LOGO_PARAMETER = 'logo';

export const brandOf = (stored: StoredBranding | undefined): PageBrand | undefined => {
  if (!stored) return undefined;
  const { displayName, accentColor, supportUrl, privacyUrl, logo } = stored.branding;
  return {
    displayName,
    ...(logo && stored.logoVersion ? { logoUrl: `?${LOGO_PARAMETER}=${stored.logoVersion}` } : {}),
    ...(accentColor ? { accentColor } : {}),
    ...(supportUrl ? { supportUrl } : {}),
    ...(privacyUrl ? { privacyUrl } : {}),
  };
};

// No quotes, `<`, `>` or `&`: a constant of the code, placed as it is.
const BRAND_STYLE = constant`.org{display:flex;align-items:center;gap:.75rem;margin:0 0 1rem;font-weight:600;font-size:1.05rem}
.org img{max-height:3rem;max-width:10rem;width:auto;height:auto}
footer{max-width:44rem;margin:0 auto;padding:0 1rem 2rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem}
footer a{display:inline-block;min-height:1.5rem}`;

/** A CSP source of an inline sheet or script: its SHA-256 hash. */
export const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const BRAND_STYLE_HASH = cspHash(toText(BRAND_STYLE));

/** The accent colour's sheet: a colour checked as `#RRGGBB` by branding/set, so nothing but a colour. */
const accentSheet = (colour: string): string =>
  `a{color:${colour}}button{background:${colour}}.status{border-left-color:${colour}}`;

const accentHashes = new Map<string, string>();
const accentHash = (colour: string): string => {
  let hash = accentHashes.get(colour);
  if (hash === undefined) {
    hash = cspHash(accentSheet(colour));
    if (accentHashes.size < 1000) accentHashes.set(colour, hash);
  }
  return hash;
};

/** What a branded page adds to its head. */
export const brandHead = (brand: PageBrand): Html =>
  html`<style>${BRAND_STYLE}</style>${brand.accentColor ? html`<style>${accentSheet(brand.accentColor)}</style>` : ''}`;

/** The name (and logo) above the page's heading: the logo is the name's picture, so it says nothing more. */
export const brandBanner = (brand: PageBrand): Html =>
  html`<p class="org">${brand.logoUrl ? html`<img src="${brand.logoUrl}" alt="">` : ''}<span>${brand.displayName}</span></p>`;

/** The support and privacy links, opened beside the page (it may be inside an app's frame). */
export const brandFooter = (words: Words, brand: PageBrand): Html | '' => {
  const links = [
    brand.supportUrl ? { href: brand.supportUrl, text: words.t('brand.support') } : undefined,
    brand.privacyUrl ? { href: brand.privacyUrl, text: words.t('brand.privacy') } : undefined,
  ].filter((link) => link !== undefined);
  if (links.length === 0) return '';
  return html`<footer>${links.map(
    (link) => html`<a href="${link.href}" target="_blank" rel="noopener noreferrer">${link.text}</a>`,
  )}</footer>
`;
};

export interface PolicyParts {
  /** The base sheet's hash (layout.ts). */
  styleHash: string;
  brand?: PageBrand | undefined;
  /** The origins that may frame the page; none: no framing. */
  frameAncestors?: readonly string[] | undefined;
  /** The hash of the page's one script, if it has one. */
  scriptHash?: string | undefined;
}

/** A page's Content-Security-Policy: nothing loads but the page itself (and its logo, from its own route). */
export const contentSecurityPolicy = ({ styleHash, brand, frameAncestors, scriptHash }: PolicyParts): string => {
  const styles = [
    styleHash,
    ...(brand ? [BRAND_STYLE_HASH] : []),
    ...(brand?.accentColor ? [accentHash(brand.accentColor)] : []),
  ];
  return [
    "default-src 'none'",
    `style-src ${styles.join(' ')}`,
    ...(brand?.logoUrl ? ["img-src 'self'"] : []),
    ...(scriptHash ? [`script-src ${scriptHash}`] : []),
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors?.length ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
};
