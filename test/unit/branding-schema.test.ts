import { describe, expect, test } from '@jest/globals';
import * as z from 'zod/mini';
import { contrastWithWhite } from '#shared/branding/contrast.js';
import { setBrandingRequest } from '#shared/branding/routes/set-branding.js';

// branding/set refuses what the pages could not show safely, naming the field (contract 16.2).

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');

const issues = (branding: unknown): string[] => {
  const parsed = z.safeParse(setBrandingRequest, { organizationId: 'acme', branding });
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};
const named = (extra: Record<string, unknown>) => ({ displayName: 'Acme', ...extra });

describe('a branding is accepted', () => {
  test.each([
    ['a name alone', named({})],
    ['null (removes it)', null],
    ['a PNG logo', named({ logo: { contentType: 'image/png', data: PNG.toString('base64') } })],
    ['a JPEG logo', named({ logo: { contentType: 'image/jpeg', data: JPEG.toString('base64') } })],
    ['a WebP logo', named({ logo: { contentType: 'image/webp', data: WEBP.toString('base64') } })],
    ['a dark accent colour', named({ accentColor: '#0B5CAD' })],
    [
      'every field',
      named({ defaultLocale: 'ar', supportUrl: 'https://a.example/help', privacyUrl: 'https://a.example/p' }),
    ],
    ['ten origins', named({ embedOrigins: Array.from({ length: 10 }, (_, n) => `https://app${n}.example:8443`) })],
    ['a right-to-left name', named({ displayName: 'شركة أكمي' })],
  ])('%s', (_name, branding) => {
    expect(issues(branding)).toEqual([]);
  });
});

describe('a branding is refused with a message naming the field', () => {
  const logo = (contentType: string, bytes: Buffer) => named({ logo: { contentType, data: bytes.toString('base64') } });
  test.each([
    ['no name', {}, 'branding.displayName: displayName is required'],
    ['an empty name', named({ displayName: '' }), 'displayName must be 1 to 100 characters'],
    ['a name of 101 characters', named({ displayName: 'a'.repeat(101) }), 'displayName must be 1 to 100'],
    ['a right-to-left override in the name', named({ displayName: 'Acme\u202Egnp.exe' }), 'bidirectional control'],
    ['an isolate in the name', named({ displayName: '\u2067Acme' }), 'bidirectional control'],
    ['a control character in the name', named({ displayName: 'Ac\u0007me' }), 'control characters'],
    ['an SVG logo', logo('image/svg+xml', SVG), 'branding.logo.contentType: logo.contentType must be one of'],
    ['SVG bytes called a PNG', logo('image/png', SVG), 'not an image of its contentType'],
    ['a JPEG called a PNG', logo('image/png', JPEG), 'not an image of its contentType'],
    ['a PNG called a WebP', logo('image/webp', PNG), 'not an image of its contentType'],
    [
      'a logo of 100,001 bytes',
      logo('image/png', Buffer.concat([PNG, Buffer.alloc(100_001 - PNG.length)])),
      'at most 100000 bytes',
    ],
    ['a logo not in base64', named({ logo: { contentType: 'image/png', data: 'not base64!' } }), 'standard base64'],
    ['a logo without its data', named({ logo: { contentType: 'image/png' } }), 'branding.logo.data'],
    [
      'an accent colour in another notation',
      named({ accentColor: 'rgb(0,0,0)' }),
      'accentColor must be a colour #RRGGBB',
    ],
    ['a yellow accent (white text on it unreadable)', named({ accentColor: '#ffcc00' }), 'contrast of at least 4.5:1'],
    ['an accent just under 4.5:1', named({ accentColor: '#777777' }), 'contrast of at least 4.5:1'],
    ['a locale the pages do not speak', named({ defaultLocale: 'it' }), 'defaultLocale must be one of en, de'],
    ['a support URL over http', named({ supportUrl: 'http://a.example/help' }), 'supportUrl must be an https URL'],
    ['a privacy URL with script', named({ privacyUrl: 'javascript:alert(1)' }), 'privacyUrl must be an https URL'],
    ['an origin with a path', named({ embedOrigins: ['https://app.example/'] }), 'https origin'],
    ['an http origin', named({ embedOrigins: ['http://app.example'] }), 'https origin'],
    ['an origin with a wildcard', named({ embedOrigins: ['https://*.example'] }), 'https origin'],
    [
      'eleven origins',
      named({ embedOrigins: Array.from({ length: 11 }, (_, n) => `https://a${n}.example`) }),
      'at most 10 origins',
    ],
    ['another field', named({ theme: 'dark' }), 'branding'],
  ])('%s', (_name, branding, message) => {
    expect(issues(branding).join('\n')).toContain(message);
  });
});

test('contrast against white follows WCAG: black 21:1, white 1:1, #767676 just over 4.5:1', () => {
  expect(contrastWithWhite('#000000')).toBeCloseTo(21, 5);
  expect(contrastWithWhite('#ffffff')).toBeCloseTo(1, 5);
  expect(contrastWithWhite('#767676')).toBeGreaterThanOrEqual(4.5);
  expect(contrastWithWhite('#777777')).toBeLessThan(4.5);
});
