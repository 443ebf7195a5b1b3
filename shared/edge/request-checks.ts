import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from '#shared/api/errors.js';
import { MAX_BODY_BYTES } from '#shared/api/identifiers.js';

// `application/json`, any letter case, optionally followed by parameters such as charset
// (with or without spaces around the `;`). This is the only content-type check: Middy's JSON
// parser runs with its own, stricter one turned off.
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;.*)?$/i;

// fatal: bytes that are not UTF-8 fail instead of becoming U+FFFD (two different ids would
// then share storage). ignoreBOM keeps a byte-order mark, as a text body keeps it: not JSON.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const decodeBase64Body = (body: string): string => {
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length > MAX_BODY_BYTES) throw bodyTooLarge();
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ApiError('INVALID_ARGUMENT', 'Request body must be valid UTF-8.');
  }
};

const bodyTooLarge = () =>
  new ApiError('INVALID_ARGUMENT', `Request body must be at most 1 MiB (${MAX_BODY_BYTES} bytes).`);

/**
 * docs/api.md, Wire protocol; checked after authentication and before the body is parsed. A body
 * API Gateway passed base64-encoded (bytes it does not pass as text) is decoded here, strictly,
 * and handed on as text.
 */
export const assertCallableRequest = (event: APIGatewayProxyEventV2): void => {
  const method = event.requestContext?.http?.method ?? 'POST';
  if (method !== 'POST') {
    throw new ApiError('INVALID_ARGUMENT', `Method ${method} is not allowed; use POST.`);
  }
  const contentType = event.headers?.['content-type'];
  if (!contentType || !JSON_CONTENT_TYPE.test(contentType)) {
    throw new ApiError('INVALID_ARGUMENT', 'Content-Type must be application/json.');
  }
  if (event.isBase64Encoded && event.body) {
    event.body = decodeBase64Body(event.body);
    event.isBase64Encoded = false;
  }
  const body = event.body ?? '';
  if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) throw bodyTooLarge();
  if (body.length === 0) {
    throw new ApiError('INVALID_ARGUMENT', 'Request body must be a JSON object with a single key, data.');
  }
};
