import { type Branding, orderedBranding } from './model.js';
import type { GetBrandingRequest, GetBrandingResult } from './routes/get-branding.js';
import type { SetBrandingRequest, SetBrandingResult } from './routes/set-branding.js';
import type { BrandingStore } from './store.js';

/** The branding as stored: its colour in lower case, each origin once. */
const normalBranding = (input: NonNullable<SetBrandingRequest['branding']>): Branding =>
  orderedBranding({
    ...input,
    ...(input.accentColor === undefined ? {} : { accentColor: input.accentColor.toLowerCase() }),
    ...(input.embedOrigins === undefined ? {} : { embedOrigins: [...new Set(input.embedOrigins)] }),
  });

/** docs/api.md, branding/set: replaces the whole branding; null removes it. */
export const setBranding = async (
  { store, now = () => new Date() }: { store: BrandingStore; now?: () => Date },
  { organizationId, branding }: SetBrandingRequest,
  apiKey: string,
): Promise<SetBrandingResult> => {
  const updatedAt = now().toISOString();
  if (branding === null) await store.remove(organizationId);
  else await store.put(organizationId, normalBranding(branding), { updatedAt, updatedBy: apiKey });
  return { updatedAt };
};

/** docs/api.md, branding/get: the branding as stored, or null. */
export const getBranding = async (
  { store }: { store: BrandingStore },
  { organizationId }: GetBrandingRequest,
): Promise<GetBrandingResult> => ({ branding: (await store.get(organizationId))?.branding ?? null });
