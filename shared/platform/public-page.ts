/*
 * What a public page (a link in an email: shared/links/) receives from its edge
 * (shared/edge/public-route.ts) and answers: plain types, so that the page's code and the edge
 * share them without importing each other.
 */

export interface PublicRequest {
  /** GET (HEAD too: the edge drops the body of its answer) or POST. */
  method: 'GET' | 'POST';
  /** The path's last segment: checked by the page (shared/links/token.ts), never logged. */
  token: string;
  /** The request's body as bytes (empty for a GET). */
  body: Buffer;
  contentType: string | undefined;
  /** The request's Accept-Language header: the page's language when the link names none it speaks. */
  acceptLanguage?: string | undefined;
  /** The query string's parameters (the first of each name). */
  query: Readonly<Record<string, string>>;
  /** Aborted a second before the function's deadline: stop issuing writes then. */
  signal: AbortSignal;
  /** Who sent it, as the edge received it: the evidence of a change made from the page. Never logged. */
  client?: ClientOfRequest | undefined;
}

/** The client's IP address (IPv4 or IPv6) and user agent (at most 512 characters), when known. */
export interface ClientOfRequest {
  ipAddress?: string | undefined;
  userAgent?: string | undefined;
}

export interface PageAnswer {
  status: 200 | 303 | 400 | 404;
  /** The page (ignored with a 303). */
  body: string;
  /** A 303's Location: relative to the request's URL (it never repeats the token). */
  location?: string;
  /**
   * Headers of this answer over the pages' own (an organization's pages: their CSP; a logo: its
   * type and cache).
   */
  headers?: Readonly<Record<string, string>>;
  /** The body is base64 of bytes (a logo). */
  base64?: boolean;
  /** The body is a JSON file to save under this name (a 200 with Content-Disposition: attachment), not a page. */
  download?: string;
}

/** The pages that say the same for every request of a route, rendered once per container. */
export interface FixedPages {
  notFound: string;
  methodNotAllowed: string;
  tryAgain: string;
}
