/**
 * URLs as error messages may show them: no userinfo, no query, no fragment (a query may carry
 * a key).
 *
 * @module
 */

/** The url as an error message may show it: no userinfo, no query, no fragment. */
export function safeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
