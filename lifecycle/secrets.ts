/**
 * The secret values a declaration hands to its hooks, and the one redactor that keeps them out
 * of every error, reason, warning and event the hook engine writes (`[redacted]`, the event
 * log's own marker). The values are read at each use, so a rotated token still counts.
 *
 * What counts as a secret of a declaration:
 *
 * - a remote's bearer token (the value of `tokenEnv`) and every `headers:` value;
 * - a command's `env:` pass-throughs;
 * - a module's `permissions.env` grants given as a list: the value of each named variable, and
 *   for a `PREFIX*` grant the value of every variable whose name starts with `PREFIX`;
 * - a module's `permissions.env: true` grants the whole environment: redacting every value
 *   (PATH, HOME, LANG, …) would garble every message, so only the variables whose NAMES look
 *   secret (token, secret, password, api key, … as the event log's scrubber judges them) are
 *   redacted. Grant a list to have exactly those values redacted.
 *
 * Values shorter than 4 characters are never redacted (a `1` would blank every digit).
 *
 * Each secret is also redacted in the encodings a hook reaches for without trying
 * ({@linkcode secretForms}): base64 and base64url (padded or not, and inside a longer base64
 * text such as `Basic <base64 of user:secret>`), hex (either case), and percent-encoding
 * (`encodeURIComponent`, `encodeURI`, and the form encoding with `+` for a space; `%2f` or
 * `%2F`).
 *
 * What redaction is NOT: a boundary. A hook given a secret can always get it out through a
 * channel it was granted — split it over two messages, reverse or xor it, encode it twice, or
 * send it to a host its `permissions.net` allows. Redaction keeps a secret out of the-loop's own
 * logs and comments by accident; grant a secret only to a hook trusted with it.
 *
 * @module
 */
import type { EnvReader } from "../config/mod.ts";
import { isSecretKey, REDACTED } from "../events/mod.ts";
import type { Declaration, Entry } from "./declaration/mod.ts";

export type { EnvReader };

/** Options for {@linkcode secretsOf}. */
export interface SecretsOptions {
  /**
   * The names of the process's environment variables, for `PREFIX*` and `env: true` grants;
   * default: `Deno.env`'s (none when env access is denied).
   */
  names?: () => readonly string[];
}

/** Shortest value the redactor replaces. */
export const MIN_SECRET_LENGTH = 4;

function processNames(): string[] {
  try {
    return Object.keys(Deno.env.toObject());
  } catch {
    return [];
  }
}

/** The secret values one entry carries (see the module doc for what counts). */
function entrySecrets(e: Entry, env: EnvReader, names: () => readonly string[]): string[] {
  switch (e.kind) {
    case "remote":
      return [...(e.tokenEnv ? [env(e.tokenEnv) ?? ""] : []), ...Object.values(e.headers)];
    case "command":
      return e.env.map((n) => env(n) ?? "");
    case "module": {
      const grant = e.permissions.env;
      if (grant === undefined) return [];
      if (grant === true) return names().filter(isSecretKey).map((n) => env(n) ?? "");
      const out: string[] = [];
      for (const g of grant) {
        if (!g.endsWith("*")) out.push(env(g) ?? "");
        else {
          const prefix = g.slice(0, -1);
          for (const n of names()) if (n.startsWith(prefix)) out.push(env(n) ?? "");
        }
      }
      return out;
    }
  }
}

/**
 * The secret values of `decl`'s entries (or of the given entries), read from `env` each time
 * the returned function is called.
 */
export function secretsOf(
  decl: Declaration | { entries: readonly Entry[] },
  env: EnvReader,
  opts: SecretsOptions = {},
): () => string[] {
  const names = opts.names ?? processNames;
  return () =>
    decl.entries.flatMap((e) => entrySecrets(e, env, names)).filter((s) =>
      s.length >= MIN_SECRET_LENGTH
    );
}

const encoder = new TextEncoder();

function base64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const toUrl = (b64: string) => b64.replaceAll("+", "-").replaceAll("/", "_");

/**
 * The base64 forms of `bytes`: the whole encoding (padded and not) and, for each of the three
 * alignments the bytes can have inside a longer base64 text, the characters they alone decide.
 */
function base64Forms(bytes: Uint8Array): string[] {
  const whole = base64(bytes);
  const out = [whole, whole.replace(/=+$/, "")];
  for (let k = 0; k < 3; k++) {
    const shifted = new Uint8Array(k + bytes.length);
    shifted.set(bytes, k);
    const text = base64(shifted);
    // character i holds bits [6i, 6i + 6); the secret's are [8k, 8(k + n))
    out.push(text.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
  }
  return out;
}

/**
 * Every form of `secret` that {@linkcode redact} replaces: the value itself, its base64 and
 * base64url forms (see {@linkcode base64Forms}), its UTF-8 bytes in hex (lower and upper case),
 * and its percent-encodings (`encodeURIComponent`, `encodeURI`, form encoding). Forms under
 * 4 characters are left out.
 */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const bytes = encoder.encode(secret);
  const b64 = base64Forms(bytes);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const forms = [
    secret,
    ...b64,
    ...b64.map(toUrl),
    hex,
    hex.toUpperCase(),
    encodeURIComponent(secret),
    encodeURI(secret),
    new URLSearchParams([["", secret]]).toString().slice(1),
  ];
  return [...new Set(forms)].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/** `form` as a pattern; a percent escape matches in either case (`%2f`, `%2F`). */
function pattern(form: string): string {
  return form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(
    /%([0-9A-F])([0-9A-F])/g,
    (_m, a: string, b: string) => `%[${a}${a.toLowerCase()}][${b}${b.toLowerCase()}]`,
  );
}

let cached: { key: string; re: RegExp | undefined } | undefined;

function matcher(secrets: readonly string[]): RegExp | undefined {
  const key = JSON.stringify(secrets);
  if (cached?.key === key) return cached.re;
  // Longest first, so a secret (or a form) containing another is replaced whole.
  const forms = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  const re = forms.length ? new RegExp(forms.map(pattern).join("|"), "g") : undefined;
  cached = { key, re };
  return re;
}

/**
 * Replaces every occurrence of each secret (4+ characters) in `text`, and of each of its
 * encoded forms ({@linkcode secretForms}), with `[redacted]`.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const re = matcher(secrets);
  return re ? text.replace(re, REDACTED) : text;
}

/** A redactor over secrets read at each use; a `secrets` that throws redacts nothing. */
export function redactor(secrets: () => readonly string[]): (text: string) => string {
  return (text) => {
    let values: readonly string[];
    try {
      values = secrets();
    } catch {
      return text;
    }
    return redact(text, [...values]);
  };
}
