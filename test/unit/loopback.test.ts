import { expect, test } from '@jest/globals';
import { isLoopbackHost } from '#local/loopback.js';

// One answer, for a bind address (npm start --host) and a URL's hostname (the seed's --url) alike.
test.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]'])('%s is loopback', (host) => {
  expect(isLoopbackHost(host)).toBe(true);
});

test.each(['0.0.0.0', '::', '192.168.1.20', '127.0.0.1.example.com', 'localhost.example.com', '[::]', ''])(
  '%j is not',
  (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  },
);

test("a URL's hostname, as the seed reads it", () => {
  expect(isLoopbackHost(new URL('http://[::1]:3000/v2').hostname)).toBe(true);
  expect(isLoopbackHost(new URL('https://api.example.com').hostname)).toBe(false);
});
