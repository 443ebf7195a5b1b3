/*
 * The forms the pages receive: `application/x-www-form-urlencoded` (a browser's form, and what
 * mail providers send for RFC 8058) or `multipart/form-data` (which RFC 8058 allows too). Parsed
 * strictly: valid UTF-8, text fields only, a bounded size and count; anything else is a reason
 * for the 400 page, never an exception.
 */

import { type Said, said } from './i18n/words.js';

/** The largest form a page accepts: a preference page of 100 categories sends about 30 KB. */
export const MAX_FORM_BYTES = 64 * 1024;
export const MAX_FORM_FIELDS = 1_000;

export type FormFields = readonly (readonly [string, string])[];

export type ParsedForm = { ok: true; fields: FormFields } | { ok: false; reason: Said };

const URLENCODED = /^\s*application\/x-www-form-urlencoded\s*(;.*)?$/i;
const MULTIPART = /^\s*multipart\/form-data\s*;/i;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Why a form is refused, said in the page's language. */
export const FORM_REASONS = {
  contentType: said('reason.contentType'),
  size: said('reason.size', { bytes: MAX_FORM_BYTES }),
  encoding: said('reason.encoding'),
  escape: said('reason.escape'),
  malformed: said('reason.malformed'),
  files: said('reason.files'),
  count: said('reason.count', { count: MAX_FORM_FIELDS }),
} as const;

const checked = (fields: [string, string][]): ParsedForm =>
  fields.length > MAX_FORM_FIELDS ? { ok: false, reason: FORM_REASONS.count } : { ok: true, fields };

export const parseForm = async (body: Buffer, contentType: string | undefined): Promise<ParsedForm> => {
  if (body.length > MAX_FORM_BYTES) return { ok: false, reason: FORM_REASONS.size };
  if (contentType && URLENCODED.test(contentType)) {
    let text: string;
    try {
      text = strictUtf8.decode(body);
    } catch {
      return { ok: false, reason: FORM_REASONS.encoding };
    }
    // The standard parse (split on &, then at the first =, + for space), with strict escapes: a
    // `%` escape of bytes that are not UTF-8, or a stray `%`, is refused, never replaced.
    const fields: [string, string][] = [];
    try {
      for (const pair of text.split('&')) {
        if (pair === '') continue;
        const at = pair.indexOf('=');
        const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
        fields.push([decodeURIComponent(name.replaceAll('+', ' ')), decodeURIComponent(value.replaceAll('+', ' '))]);
      }
    } catch {
      return { ok: false, reason: /%(?![0-9A-Fa-f]{2})/.test(text) ? FORM_REASONS.escape : FORM_REASONS.encoding };
    }
    return checked(fields);
  }
  if (contentType && MULTIPART.test(contentType)) {
    let data: FormData;
    try {
      data = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    } catch {
      return { ok: false, reason: FORM_REASONS.malformed };
    }
    const fields: [string, string][] = [];
    for (const [name, value] of data) {
      if (typeof value !== 'string') return { ok: false, reason: FORM_REASONS.files };
      fields.push([name, value]);
    }
    return checked(fields);
  }
  return { ok: false, reason: FORM_REASONS.contentType };
};

/** The values of one field, in order. */
export const valuesOf = (fields: FormFields, name: string): string[] =>
  fields.filter(([field]) => field === name).map(([, value]) => value);
