/**
 * Whether a host (a bind address or a URL's hostname: `127.0.0.1`, `localhost`, `::1`, `[::1]`)
 * is this machine's loopback, where only its own programs reach a server.
 */
export const isLoopbackHost = (host: string): boolean =>
  /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\])$/i.test(host);
