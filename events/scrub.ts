/**
 * The writer's last line of defence against secrets: values under secret-looking keys are
 * replaced, and token-shaped strings are masked wherever they appear. It also turns the fields
 * into plain JSON data (no cycles, bigints, functions or Error objects), so a record always
 * serializes.
 *
 * @module
 */

/** What a redacted value is replaced with. */
export const REDACTED = "[redacted]";

const SECRET_WORDS = new Set([
  "token",
  "secret",
  "password",
  "passwd",
  "authorization",
  "cookie",
  "credential",
  "credentials",
  "apikey",
]);
const SECRET_PAIRS = new Set(["api key", "private key", "access key", "client secret"]);

/** A key's words: `webhookSecret` → webhook, secret; `GITHUB_TOKEN_ENV` → github, token, env. */
function words(key: string): string[] {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/)
    .filter((w) => w);
}

/**
 * Does `key` name a secret? True when a word of it is token/secret/password/authorization/
 * cookie/…, except names of environment variables (keys ending in `Env` or `_env`), which hold a
 * variable's name, never its value.
 */
export function isSecretKey(key: string): boolean {
  let known = KEY_CACHE.get(key);
  if (known === undefined) {
    known = secretWords(key);
    // the same few dozen field names come by on every record: remember them (bounded)
    if (KEY_CACHE.size >= KEY_CACHE_MAX) KEY_CACHE.clear();
    KEY_CACHE.set(key, known);
  }
  return known;
}

const KEY_CACHE = new Map<string, boolean>();
const KEY_CACHE_MAX = 4096;

function secretWords(key: string): boolean {
  const ws = words(key);
  if (ws.length === 0 || ws[ws.length - 1] === "env") return false;
  for (let i = 0; i < ws.length; i++) {
    if (SECRET_WORDS.has(ws[i])) return true;
    if (i > 0 && SECRET_PAIRS.has(`${ws[i - 1]} ${ws[i]}`)) return true;
  }
  return false;
}

// GitHub tokens (classic, fine-grained, app, OAuth) and Bearer/Basic credentials in free text.
const TOKEN_PATTERN =
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})|\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{16,}/g;

/** Masks token-shaped substrings of `text`. */
export function maskTokens(text: string): string {
  if (!/gh[pousr]_|github_pat_|Bearer|Basic|token/.test(text)) return text;
  return text.replace(
    TOKEN_PATTERN,
    (_m, scheme?: string) => scheme ? `${scheme} ${REDACTED}` : REDACTED,
  );
}

const MAX_DEPTH = 20;

/** Returns a JSON-safe copy of `value` with secrets redacted (see {@linkcode isSecretKey}). */
export function scrub(value: unknown, depth = 0, seen?: Set<object>): unknown {
  if (typeof value === "string") return maskTokens(value);
  if (value === null || typeof value === "number" || typeof value === "boolean") {
    return typeof value === "number" && !Number.isFinite(value) ? String(value) : value;
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return undefined; // functions, symbols, undefined: dropped
  seen ??= new Set();
  if (seen.has(value)) return "[circular]";
  if (depth >= MAX_DEPTH) return "[too deep]";
  if (value instanceof Date) return isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Error) return maskTokens(`${value.name}: ${value.message}`);
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1, seen) ?? null);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const clean = scrubField(k, (value as Record<string, unknown>)[k], depth + 1, seen);
      if (clean !== undefined) out[k] = clean;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * The JSON-safe, redacted value of the field `key` of an object at `depth` (`undefined`: leave
 * the field out). A field named like a secret is redacted whatever it holds, except `null` and
 * booleans (`tokenSet: true` says nothing).
 */
export function scrubField(
  key: string,
  value: unknown,
  depth: number,
  seen?: Set<object>,
): unknown {
  return isSecretKey(key) && value !== null && typeof value !== "boolean"
    ? REDACTED
    : scrub(value, depth, seen);
}
