import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod/mini';
import { ApiError } from '#shared/api/errors.js';
import { MAX_BODY_BYTES } from '#shared/api/identifiers.js';
import { parseCallableBody } from '#shared/api/schema-issues.js';

/**
 * The one check of an API request, from the event's bytes to the route's typed `data`: method,
 * content type, encoding, size, UTF-8, JSON, then the envelope and the route's schema
 * (shared/api/schema-issues.ts). Every refusal is INVALID_ARGUMENT in the service's own words.
 */

// `application/json`, any letter case, optionally followed by parameters such as charset (with
// or without spaces around the `;`).
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;.*)?$/i;

// fatal: bytes that are not UTF-8 fail instead of becoming U+FFFD (two different ids would then
// share storage). ignoreBOM keeps a byte-order mark, as a text body keeps it: not JSON.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const invalid = (message: string) => new ApiError('INVALID_ARGUMENT', message);
const bodyTooLarge = () => invalid(`Request body must be at most 1 MiB (${MAX_BODY_BYTES} bytes).`);

/** The body as text: API Gateway passes bytes it cannot pass as text base64-encoded; they are decoded strictly. */
const bodyText = (event: APIGatewayProxyEventV2): string => {
  if (!event.isBase64Encoded || !event.body) return event.body ?? '';
  const bytes = Buffer.from(event.body, 'base64');
  if (bytes.length > MAX_BODY_BYTES) throw bodyTooLarge();
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalid('Request body must be valid UTF-8.');
  }
};

const PROTO_KEY =
  'Request body must not hold a key named __proto__: no field has that name, and no map is keyed by it.';

/**
 * JSON.parse defines a `__proto__` key as an own property (no prototype is touched), and the
 * routes' strict objects refuse it as an unknown key; but a map keyed by ids (a policy's
 * categories) would drop it unseen when validated. So no such key is taken at all. The walk keeps
 * its own stack: however deep the body, it never runs out of the call stack (a reviver would).
 */
const refuseProtoKeys = (root: unknown): void => {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) throw invalid(PROTO_KEY);
    for (const child of Object.values(value)) pending.push(child);
  }
};

// JSON has no byte-order mark; said plainly, since the parser's own message shows an invisible character.
const BOM_MESSAGE = 'Request body must be valid JSON: it starts with a byte-order mark (U+FEFF); send it without one.';

/**
 * What is wrong with text JSON.parse refused, in the service's words: never the parser's own,
 * which quotes the body and changes with the runtime's version.
 */
const notJson = (error: unknown): string => {
  if (error instanceof RangeError) return 'it is nested too deeply';
  if (error instanceof Error && /end of JSON input/i.test(error.message)) return 'it ends before the JSON value does';
  return 'it is not well-formed';
};

const parseJson = (text: string): unknown => {
  if (text.charCodeAt(0) === 0xfeff) throw invalid(BOM_MESSAGE);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`Request body must be valid JSON: ${notJson(error)}.`);
  }
  // Only a body that could spell the key (plainly or with a \u escape) pays for the walk.
  if (text.includes('__proto__') || text.includes('\\u')) refuseProtoKeys(value);
  return value;
};

const CONTENT_ENCODING_MESSAGE = 'Content-Encoding is not supported: send the body uncompressed.';

/** The one check of a request, after authentication: method, content type, encoding, bytes, JSON, envelope and schema. */
export const readRequest = <S extends z.core.$ZodType>(schema: S, event: APIGatewayProxyEventV2): z.infer<S> => {
  const method = event.requestContext?.http?.method ?? 'POST';
  if (method !== 'POST') throw invalid(`Method ${method} is not allowed; use POST.`);
  const contentType = event.headers?.['content-type'];
  if (!contentType || !JSON_CONTENT_TYPE.test(contentType)) throw invalid('Content-Type must be application/json.');
  // A compressed body would otherwise read as bytes that are not UTF-8, a misleading answer.
  const encoding = event.headers?.['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') throw invalid(CONTENT_ENCODING_MESSAGE);
  const text = bodyText(event);
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) throw bodyTooLarge();
  // No body is answered as a body that is no object is: the same message and details.
  return parseCallableBody(schema, text.length === 0 ? undefined : parseJson(text));
};
