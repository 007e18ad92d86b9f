/**
 * Keeping secrets out of config problems: token-shaped strings are masked wherever a value is
 * echoed, values under secret-looking keys (and `headers`) are never echoed, and a value of an
 * environment-variable-NAME key that looks like a pasted token is refused.
 *
 * A small copy of the event log's masker (`events/_scrub.ts`): `config/` and `events/` are both
 * ground floor and stay independent of each other.
 *
 * @module
 */
import type { KeyPath } from "./_yaml.ts";

/** What a masked token is replaced with. */
export const MASK = "[redacted]";

// GitHub tokens (classic, OAuth, user-to-server, server-to-server, refresh, fine-grained) and
// Bearer/Basic credentials in free text.
const TOKEN_PATTERN =
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})|\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{16,}/g;

/** Masks token-shaped substrings of `text`. */
export function maskTokens(text: string): string {
  return text.replace(TOKEN_PATTERN, (_m, scheme?: string) => scheme ? `${scheme} ${MASK}` : MASK);
}

/**
 * Does a value given for an environment variable's NAME look like a token instead? True when it
 * starts with a GitHub token prefix (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`;
 * lowercase, as GitHub issues them), or when one of its `_`-separated parts is 20 characters or
 * longer and mixes letters and digits (a random key; the words of a variable name are shorter
 * and rarely carry digits).
 */
export function looksLikeToken(value: string): boolean {
  if (/^(gh[pousr]_|github_pat_)/.test(value)) return true;
  return value.split("_").some((part) =>
    part.length >= 20 && /[A-Za-z]/.test(part) && /[0-9]/.test(part)
  );
}

const SECRET_KEY = /token|secret|passw(or)?d|authorization|cookie|credential|api-?key/i;

/**
 * Is the value at `path` one never to echo? Anything under a `headers` mapping, under a key
 * that names a secret (token, secret, password, authorization, cookie, credential, apikey), or
 * under a key holding variable names (`env`, `…Env`: a pasted value there may be the secret).
 */
export function isSecretPath(path: KeyPath): boolean {
  return path.some((seg) =>
    typeof seg === "string" &&
    (seg === "headers" || seg === "env" || /Env$/.test(seg) || SECRET_KEY.test(seg))
  );
}
