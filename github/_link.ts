/** The `rel="next"` URL of a `Link` header, if any. */
export function nextLink(link: string | null | undefined): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const m = /<([^>]*)>\s*;(.*)/.exec(part.trim());
    if (m && /(?:^|;)\s*rel\s*=\s*"?(?:[^"]*\s)?next(?:\s[^"]*)?"?\s*(?:;|$)/.test(m[2])) {
      return m[1];
    }
  }
  return undefined;
}
