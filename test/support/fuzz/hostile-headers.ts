import fc from 'fast-check';

/**
 * Header values a client can put on the wire (Node sends them as latin-1 bytes): tab, space,
 * visible ASCII and the bytes 0x80-0xFF (non-ASCII text arrives as these), from empty to well
 * past DynamoDB's 2,048-byte key limit. As a credential header every one is 401, never a 5xx.
 */
export const hostileHeaderValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({
    unit: fc
      .integer({ min: 0x09, max: 0xff })
      .filter((c) => c === 0x09 || (c >= 0x20 && c !== 0x7f))
      .map((c) => String.fromCharCode(c)),
    maxLength: 200,
  }),
  fc.integer({ min: 129, max: 8000 }).map((length) => 'k'.repeat(length)),
);

/**
 * Headers besides the two credential headers that a client (or an attacker) may add, each with a
 * hostile value: a second content type or token, content encodings, trace and forwarding headers,
 * a method override, cookies and an Authorization header. None may change an answer's envelope.
 * Values stay short enough that several fit in the server's header limit.
 */
export const hostileExtraHeaders = fc.array(
  fc.tuple(
    fc.constantFrom(
      'content-type',
      'x-service-auth-token',
      'x-service-api-key',
      'content-encoding',
      'x-amzn-trace-id',
      'traceparent',
      'x-forwarded-for',
      'forwarded',
      'x-http-method-override',
      'authorization',
      'cookie',
      'origin',
      'accept',
      'accept-charset',
    ),
    fc.oneof(
      fc.constantFrom('gzip', 'br', 'identity', 'application/json', '*/*', 'null', 'Root=1-0-0;Parent=0;Sampled=1'),
      hostileHeaderValue.filter((value) => value.length <= 400),
    ),
  ),
  { maxLength: 3 },
);

export const authVariants = (apiKey: string, token: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant({ 'x-service-api-key': apiKey, 'x-service-auth-token': token }) },
    fc.constant({}),
    fc.constant({ 'x-service-api-key': apiKey }),
    fc.record({ 'x-service-api-key': fc.constant(apiKey), 'x-service-auth-token': hostileHeaderValue }),
    fc.record({ 'x-service-api-key': hostileHeaderValue, 'x-service-auth-token': fc.constant(token) }),
  );
