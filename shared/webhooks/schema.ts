import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { ALL_EVENT_TYPES, DISABLED_REASONS, MAX_DESCRIPTION_LENGTH, MAX_ENDPOINTS, MAX_URL_LENGTH } from './model.js';

/** An endpoint's id: made by the service, `ep_` and 16 base64url characters. */
export const ENDPOINT_ID_PATTERN = /^ep_[A-Za-z0-9_-]{16}$/;
export const newEndpointId = (): string => `ep_${randomBytes(12).toString('base64url')}`;

const CONTROL_CHARACTER = /\p{Cc}/u;

export const endpointId = (name: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .check(z.regex(ENDPOINT_ID_PATTERN, { error: `${name} must be an endpoint id (ep_ and 16 characters)` }));

export const eventType = () => z.enum(ALL_EVENT_TYPES, { error: `must be one of ${ALL_EVENT_TYPES.join(', ')}` });

export const endpointInput = z.strictObject({
  id: z.optional(endpointId('id')),
  url: z
    .string({ error: 'url must be a string' })
    .check(
      z.minLength(1, { error: 'url must not be empty' }),
      z.maxLength(MAX_URL_LENGTH, { error: `url must be at most ${MAX_URL_LENGTH} characters` }),
    ),
  eventTypes: z.optional(
    z
      .array(eventType())
      .check(
        z.minLength(1, { error: 'eventTypes must name at least one type (omit it for all)' }),
        z.maxLength(ALL_EVENT_TYPES.length * 2, { error: 'eventTypes names too many types' }),
      ),
  ),
  description: z.optional(
    z.string({ error: 'description must be a string' }).check(
      z.maxLength(MAX_DESCRIPTION_LENGTH, {
        error: `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
      }),
      z.refine((value: string) => !CONTROL_CHARACTER.test(value), {
        error: 'description must not contain control characters',
      }),
      z.refine((value: string) => value.isWellFormed(), { error: 'description must be well-formed Unicode' }),
    ),
  ),
  disabled: z.optional(z.boolean({ error: 'disabled must be true or false' })),
});
export type EndpointInput = z.infer<typeof endpointInput>;

export const endpointsInput = z
  .array(endpointInput, { error: 'endpoints must be an array' })
  .check(z.maxLength(MAX_ENDPOINTS, { error: `endpoints must hold at most ${MAX_ENDPOINTS} endpoints` }));

/** An endpoint as answered: never its secret (set adds a new one's, once). */
export const endpointView = () =>
  z.strictObject({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(eventType()),
    description: z.optional(z.string()),
    disabled: z.boolean(),
    disabledReason: z.optional(z.enum(DISABLED_REASONS)),
  });
