/**
 * Keeping secrets out of config problems: token-shaped strings are masked wherever a problem
 * quotes what the user wrote (values, keys, key paths, anchors, tags), values under
 * secret-looking keys (and `headers`) are never echoed, and a value of an
 * environment-variable-NAME key that looks like a pasted token is refused.
 *
 * A small copy of the event log's masker (`events/scrub.ts`): `config/` and `events/` are both
 * ground floor and stay independent of each other.
 *
 * @module
 */
import type { Problem } from "../errors.ts";
import type { KeyPath } from "./_yaml_path.ts";

/** What a masked token is replaced with. */
export const MASK = "[redacted]";

// The shapes of credentials that get pasted into configs. Prefixed tokens are matched even when
// glued to other text (`xghp_…`); the generic `sk-`/`rk_` and AWS shapes must start a word and
// need a letter and a digit in their body, so `hooks/risk-check-2024-q3.ts` is left alone.
const TOKEN_SHAPES = [
  // GitHub: classic, OAuth, user-to-server, server-to-server, refresh; fine-grained
  String.raw`gh[pousr]_[A-Za-z0-9]{20,}`,
  String.raw`github_pat_[A-Za-z0-9_]{20,}`,
  // Slack bot, user, app, refresh, config tokens
  String.raw`xox[abeposr]-[A-Za-z0-9-]{10,}`,
  // OpenAI/Anthropic-style and Stripe-style secret keys
  String
    .raw`(?<![A-Za-z0-9])(?:sk|rk)[-_](?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}`,
  // GitLab personal tokens, npm tokens, AWS access key ids
  String.raw`glpat-[A-Za-z0-9_-]{20,}`,
  String.raw`npm_[A-Za-z0-9]{36}`,
  String.raw`(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])`,
];
const TOKEN_PATTERN = new RegExp(
  `(?:${TOKEN_SHAPES.join("|")})|(Bearer|\\bBasic|\\btoken)\\s+[A-Za-z0-9._~+/=-]{16,}`,
  "g",
);
const MAYBE_TOKEN = /gh[pousr]_|github_pat_|xox|[sr]k[-_]|glpat-|npm_|AKIA|ASIA|Bearer|Basic|token/;

/** Masks token-shaped substrings of `text`. */
export function maskTokens(text: string): string {
  if (!MAYBE_TOKEN.test(text)) return text;
  return text.replace(TOKEN_PATTERN, (_m, scheme?: string) => scheme ? `${scheme} ${MASK}` : MASK);
}

/** A problem with every token-shaped piece of its key path and message masked. */
export function maskProblem(p: Problem): Problem {
  const message = maskTokens(p.message);
  const path = p.path === undefined ? undefined : maskTokens(p.path);
  if (message === p.message && path === p.path) return p;
  return { ...p, message, ...(path === undefined ? {} : { path }) };
}

/** The problem for a token given where a variable's NAME belongs. */
export function tokenNotName(example = "MY_HOOK_TOKEN"): string {
  return "this looks like a token, not a variable name — put the NAME of the environment " +
    `variable that holds it (e.g. ${example})`;
}

const TOKEN_PREFIX = /^(gh[pousr]_|github_pat_|xox[abeposr]-|glpat-|npm_|sk-|sk_live_|rk_live_)/;

/**
 * Does a value given for an environment variable's NAME look like a token instead? True when it
 * starts with a token prefix (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`, `xoxb-`, `sk-`,
 * `glpat-`, `npm_`, …; lowercase, as they are issued), when a token shape appears anywhere in it,
 * or when one of its `_`-separated parts is 20 characters or longer and mixes letters and digits
 * (a random key; the words of a variable name are shorter and rarely carry digits).
 */
export function looksLikeToken(value: string): boolean {
  if (TOKEN_PREFIX.test(value) || maskTokens(value) !== value) return true;
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
