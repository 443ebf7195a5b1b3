import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from '#shared/api/errors.js';
import { MAX_BODY_BYTES } from '#shared/api/identifiers.js';

// `application/json`, any letter case, optionally followed by parameters such as charset.
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;.*)?$/i;

/** Contract section 1, checked after authentication and before the body is parsed. */
export const assertCallableRequest = (event: APIGatewayProxyEventV2): void => {
  const method = event.requestContext?.http?.method ?? 'POST';
  if (method !== 'POST') {
    throw new ApiError('INVALID_ARGUMENT', `Method ${method} is not allowed; use POST.`);
  }
  const contentType = event.headers?.['content-type'];
  if (!contentType || !JSON_CONTENT_TYPE.test(contentType)) {
    throw new ApiError('INVALID_ARGUMENT', 'Content-Type must be application/json.');
  }
  const body = event.body ?? '';
  const bytes = event.isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body, 'utf8');
  if (bytes > MAX_BODY_BYTES) {
    throw new ApiError('INVALID_ARGUMENT', `Request body must be at most 1 MiB (${MAX_BODY_BYTES} bytes).`);
  }
  if (body.length === 0) {
    throw new ApiError('INVALID_ARGUMENT', 'Request body must be a JSON object with a single key, data.');
  }
};
