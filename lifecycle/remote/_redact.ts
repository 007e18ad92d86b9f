/**
 * Keeps secrets out of error text: the bearer token and the operator's header values are
 * replaced wherever they appear (a server may echo a request back in its error message).
 *
 * @module
 */

/** Replaces every occurrence of each secret in `text` with `***`. Empty secrets are ignored. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length > 0) out = out.split(s).join("***");
  }
  return out;
}

/** The url as an error message may show it: no userinfo, no query, no fragment. */
export function safeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
