import { LOCALES } from '#shared/api/locales.js';
import { MAX_LOGO_BYTES } from '#shared/branding/logo.js';
import type { getBrandingRoute } from '#shared/branding/routes/get-branding.js';
import type { setBrandingRoute } from '#shared/branding/routes/set-branding.js';
import { MAX_DISPLAY_NAME_LENGTH, MAX_EMBED_ORIGINS } from '#shared/branding/schema.js';
import { BODY_RULE, COMMON_ERRORS, IDENTIFIER_RULE, type OperationDocs, TIME, withInvalidArgument } from './common.js';

/** A 1 x 1 PNG: a logo's shape in the examples. */
const EXAMPLE_LOGO = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const EXAMPLE_BRANDING = {
  displayName: 'Acme Docs',
  logo: { contentType: 'image/png' as const, data: EXAMPLE_LOGO },
  accentColor: '#0b5cad',
  defaultLocale: 'fr' as const,
  supportUrl: 'https://help.acme.example/',
  privacyUrl: 'https://acme.example/privacy',
  embedOrigins: ['https://app.acme.example'],
};

export const setBrandingDocs: OperationDocs<typeof setBrandingRoute> = {
  tag: 'Organization branding',
  name: 'SetBranding',
  summary: 'Replace the branding of the pages an organization’s links open',
  description: [
    'What the unsubscribe and preference pages show of the organization: its name (in the title and the heading),',
    'its logo (served by the page’s own route, so that the page stays self-contained), its accent colour (links and',
    'buttons), links to its support and privacy pages, the language of a page when neither the link nor the browser',
    'names one the pages speak, and the origins of its own app that may frame the preference page',
    '(`frame-ancestors`). It replaces the whole branding; `branding: null` removes it, and the pages look as they do',
    'without one. Pages show a change at once.',
    '',
    `Limits: \`displayName\` 1 to ${MAX_DISPLAY_NAME_LENGTH} characters, neither with control characters nor`,
    'bidirectional control characters (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C); `logo`',
    `\`{contentType, data}\`, an image/png, image/jpeg or image/webp of at most ${MAX_LOGO_BYTES} bytes in standard`,
    'base64, whose first bytes are that format’s (no SVG); `accentColor` `#RRGGBB` with a contrast of at least 4.5:1',
    `with white (WCAG AA: white text on it, and it as text on white); \`defaultLocale\` one of ${LOCALES.join(', ')};`,
    `\`supportUrl\` and \`privacyUrl\` https URLs; \`embedOrigins\` at most ${MAX_EMBED_ORIGINS} https origins such as`,
    '`https://app.example.com` (no path).',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: withInvalidArgument(
    'Also a field beyond its limit: a display name with a bidirectional control character, a logo too large, of another format than its contentType or not base64, an accent colour under 4.5:1 against white, a locale the pages do not speak, a URL or origin not https.',
  ),
  examples: {
    full: {
      summary: 'A name, a logo, an accent colour, French by default, support and privacy pages, framed by the app',
      value: { organizationId: 'acme', branding: EXAMPLE_BRANDING },
      result: { updatedAt: '2026-11-22T09:00:00.000Z' },
    },
    remove: {
      summary: 'No branding: the pages as they are without one',
      value: { organizationId: 'acme', branding: null },
      result: { updatedAt: '2026-11-22T09:05:00.000Z' },
    },
  },
  invalidExample: {
    summary: 'An accent colour too light for white text',
    value: { organizationId: 'acme', branding: { displayName: 'Acme Docs', accentColor: '#ffcc00' } },
  },
  fields: {
    request: {
      branding: 'The whole branding, or null to remove it.',
      'branding.displayName': 'The organization’s name as people know it: the pages’ title and heading.',
      'branding.logo': 'The logo shown above the heading, with the display name as its text alternative.',
      'branding.accentColor': 'The colour of links and buttons.',
      'branding.defaultLocale':
        'The pages’ language when neither the link’s locale nor the browser’s Accept-Language names one they speak.',
      'branding.supportUrl': 'Linked at the foot of every page.',
      'branding.privacyUrl': 'Linked at the foot of every page.',
      'branding.embedOrigins':
        'The origins of the organization’s app that may frame the preference page (`frame-ancestors`); none: no framing.',
    },
    result: { updatedAt: TIME },
  },
};

export const getBrandingDocs: OperationDocs<typeof getBrandingRoute> = {
  tag: 'Organization branding',
  name: 'GetBranding',
  summary: 'Read the branding of an organization’s pages',
  description: [
    'The branding as stored (never from a cache), or `{"branding": null}` when the organization has none.',
    '',
    `${IDENTIFIER_RULE} ${BODY_RULE}`,
  ].join('\n'),
  errors: COMMON_ERRORS,
  examples: {
    branding: { summary: "acme's branding", value: { organizationId: 'acme' }, result: { branding: EXAMPLE_BRANDING } },
  },
  invalidExample: { summary: 'Missing organizationId', value: {} },
  fields: { result: { branding: 'null when the organization has none.' } },
};
