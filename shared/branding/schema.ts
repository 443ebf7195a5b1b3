import * as z from 'zod/mini';
import { displayText } from '#shared/api/display-text.js';
import { LOCALES } from '#shared/api/locales.js';
import { once } from '#shared/platform/once.js';
import { contrastWithWhite, MIN_ACCENT_CONTRAST } from './contrast.js';
import { isOfType, logoBytes, MAX_LOGO_BYTES } from './logo.js';
import { LOGO_TYPES } from './model.js';

/** docs/api.md, Branding: the limits of a branding. */
export const MAX_DISPLAY_NAME_LENGTH = 100;
export const MAX_EMBED_ORIGINS = 10;
export const MAX_URL_LENGTH = 2000;

const HEX_COLOUR = /^#[0-9A-Fa-f]{6}$/;

const parsedUrl = (value: string): URL | undefined => {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
};

/** An https URL of a page for people (support, privacy), as written. */
const pageUrl = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .check(
      z.refine(
        (value: string) =>
          value.length <= MAX_URL_LENGTH && !/[\s\p{Cc}]/u.test(value) && parsedUrl(value)?.protocol === 'https:',
        { error: `${name} must be an https URL of at most ${MAX_URL_LENGTH} characters` },
      ),
    );

/** An https origin in its own form (`https://app.example.com`, a port if not 443): what frame-ancestors names. */
const origin = () =>
  z.string({ error: 'each of embedOrigins must be a string' }).check(
    z.refine(
      (value: string) => {
        const url = parsedUrl(value);
        // A host of letters, digits, dots and hyphens (an IDN in its punycode): nothing a CSP source reads as a wildcard.
        return (
          url?.protocol === 'https:' && url.origin === value && /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname)
        );
      },
      {
        error:
          'each of embedOrigins must be an https origin such as https://app.example.com (no path, no slash at the end)',
      },
    ),
  );

/**
 * A branding as branding/set accepts it and branding/get answers it, built on first use
 * (once.ts): only branding/set parses one.
 */
export const brandingSchema = once(() => {
  const logo = z
    .strictObject(
      {
        contentType: z.enum(LOGO_TYPES, { error: `logo.contentType must be one of ${LOGO_TYPES.join(', ')}` }),
        data: z.string({ error: 'logo.data must be a base64 string' }),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? 'logo must be an object {contentType, data}' : undefined) },
    )
    .check(
      z.refine((value) => logoBytes(value.data) !== undefined, {
        error: 'logo.data must be standard base64 (with its padding)',
        abort: true,
      }),
      z.refine((value) => (logoBytes(value.data) as Buffer).length <= MAX_LOGO_BYTES, {
        error: `logo must be at most ${MAX_LOGO_BYTES} bytes`,
        abort: true,
      }),
      z.refine((value) => isOfType(logoBytes(value.data) as Buffer, value.contentType), {
        error: 'logo.data is not an image of its contentType (its first bytes are not that format’s)',
      }),
    );

  return z.strictObject(
    {
      displayName: displayText('displayName', 1, MAX_DISPLAY_NAME_LENGTH),
      logo: z.optional(logo),
      accentColor: z.optional(
        z.string({ error: 'accentColor must be a string' }).check(
          z.refine((value: string) => HEX_COLOUR.test(value), {
            error: 'accentColor must be a colour #RRGGBB',
            abort: true,
          }),
          z.refine((value: string) => contrastWithWhite(value) >= MIN_ACCENT_CONTRAST, {
            error: `accentColor must keep a contrast of at least ${MIN_ACCENT_CONTRAST}:1 with white (WCAG AA), both as text on white and under white text`,
          }),
        ),
      ),
      defaultLocale: z.optional(z.enum(LOCALES, { error: `defaultLocale must be one of ${LOCALES.join(', ')}` })),
      supportUrl: z.optional(pageUrl('supportUrl')),
      privacyUrl: z.optional(pageUrl('privacyUrl')),
      embedOrigins: z.optional(
        z
          .array(origin(), { error: 'embedOrigins must be an array of https origins' })
          .check(
            z.maxLength(MAX_EMBED_ORIGINS, { error: `embedOrigins must hold at most ${MAX_EMBED_ORIGINS} origins` }),
          ),
      ),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'branding must be an object or null' : undefined) },
  );
});
export type BrandingInput = z.input<ReturnType<typeof brandingSchema>>;
