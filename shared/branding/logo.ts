import type { LogoType } from './model.js';

/** The largest logo, in bytes: a page's only image, served by the page's route (docs/api.md, Branding). */
export const MAX_LOGO_BYTES = 100_000;

/** Standard base64 with its padding (what `Buffer.toString('base64')` writes). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The logo's bytes, or undefined when `data` is no standard base64. */
export const logoBytes = (data: string): Buffer | undefined =>
  BASE64.test(data) ? Buffer.from(data, 'base64') : undefined;

const startsWith = (bytes: Buffer, at: number, signature: readonly number[]): boolean =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte);

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

/**
 * Whether the bytes begin as an image of their declared type begins (its magic number): a page
 * serves the logo with that type and nosniff, so a file of another kind never passes for it.
 */
export const isOfType = (bytes: Buffer, contentType: LogoType): boolean => {
  switch (contentType) {
    case 'image/png':
      return startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'image/jpeg':
      return startsWith(bytes, 0, [0xff, 0xd8, 0xff]);
    case 'image/webp':
      return startsWith(bytes, 0, ascii('RIFF')) && startsWith(bytes, 8, ascii('WEBP'));
  }
};
