import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import * as z from 'zod/mini';
import { ApiError } from '#shared/api/errors.js';
import type { ApiEvidence } from './evidence.js';
import type { ConsentTextStore } from './text-store.js';

/*
 * `data.consent` of config/set, config/reset and schedule/set (docs/api.md, Consent evidence):
 * what the caller states of the consent it captured, repeated in the evidence of every change the
 * request makes, the text by its SHA-256 (the text itself is stored once per organization:
 * text-store.ts).
 */

export const MAX_CONSENT_TEXT_LENGTH = 5_000;
export const MAX_CONSENT_LABEL_LENGTH = 64;
export const MAX_USER_AGENT_LENGTH = 512;
/** How old a stated capture may be: consent is recorded when it is given, not months later. */
export const MAX_CAPTURE_AGE_DAYS = 90;

const label = (name: string) =>
  z.string({ error: `consent.${name} must be a string` }).check(
    z.minLength(1, { error: `consent.${name} must not be empty` }),
    z.maxLength(MAX_CONSENT_LABEL_LENGTH, {
      error: `consent.${name} must be at most ${MAX_CONSENT_LABEL_LENGTH} characters`,
    }),
  );

export const consentRequest = z.strictObject(
  {
    /** Where the person chose: `settings`, `signup-form`, `support`. */
    source: label('source'),
    /** When the person chose; at most 90 days ago, not in the future. Default: the request's time. */
    capturedAt: z.optional(
      z.iso.datetime({
        offset: true,
        error:
          'consent.capturedAt must be an ISO-8601 instant with seconds and a UTC offset or Z, such as 2026-03-29T08:00:00Z',
      }),
    ),
    textVersion: z.optional(label('textVersion')),
    /** What the person was shown. */
    text: z.optional(
      z.string({ error: 'consent.text must be a string' }).check(
        z.maxLength(MAX_CONSENT_TEXT_LENGTH, {
          error: `consent.text must be at most ${MAX_CONSENT_TEXT_LENGTH} characters`,
        }),
      ),
    ),
    /** The person's IPv4 or IPv6 address, as the caller received it. */
    ipAddress: z.optional(
      z.string({ error: 'consent.ipAddress must be a string' }).check(
        z.refine((address: string) => isIP(address) !== 0, {
          error: 'consent.ipAddress must be an IPv4 or IPv6 address',
        }),
      ),
    ),
    userAgent: z.optional(
      z.string({ error: 'consent.userAgent must be a string' }).check(
        z.maxLength(MAX_USER_AGENT_LENGTH, {
          error: `consent.userAgent must be at most ${MAX_USER_AGENT_LENGTH} characters`,
        }),
      ),
    ),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'consent must be an object' : undefined) },
);
export type ConsentRequest = z.infer<typeof consentRequest>;

/** The SHA-256 of a consent text, in hex: its address in the organization's texts. */
export const textSha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The evidence of an API change made at `requestTime`: `{via: 'api'}` and what `consent` states.
 * A capture time in the future or older than MAX_CAPTURE_AGE_DAYS is INVALID_ARGUMENT, refused
 * before anything is written.
 */
export const apiEvidence = (consent: ConsentRequest | undefined, requestTime: Date): ApiEvidence => {
  if (!consent) return { via: 'api' };
  const captured = consent.capturedAt === undefined ? requestTime : new Date(consent.capturedAt);
  if (captured.getTime() > requestTime.getTime()) {
    throw new ApiError('INVALID_ARGUMENT', 'consent.capturedAt must not be in the future');
  }
  if (requestTime.getTime() - captured.getTime() > MAX_CAPTURE_AGE_DAYS * DAY_MS) {
    throw new ApiError('INVALID_ARGUMENT', `consent.capturedAt must be at most ${MAX_CAPTURE_AGE_DAYS} days ago`);
  }
  return {
    via: 'api',
    source: consent.source,
    capturedAt: captured.toISOString(),
    ...(consent.textVersion === undefined ? {} : { textVersion: consent.textVersion }),
    ...(consent.text === undefined ? {} : { textSha256: textSha256(consent.text) }),
    ...(consent.ipAddress === undefined ? {} : { ipAddress: consent.ipAddress }),
    ...(consent.userAgent === undefined ? {} : { userAgent: consent.userAgent }),
  };
};

/**
 * Stores the text a consent states, once per organization (text-store.ts), before any change that
 * refers to it is written: a change's textSha256 always finds its text.
 */
export const storeConsentText = async (
  texts: ConsentTextStore | undefined,
  organizationId: string,
  consent: ConsentRequest | undefined,
  requestTime: Date,
): Promise<void> => {
  if (consent?.text === undefined) return;
  if (!texts) throw new Error('A consent with a text needs the consent text store');
  await texts.putText(organizationId, textSha256(consent.text), consent.text, requestTime.toISOString());
};
