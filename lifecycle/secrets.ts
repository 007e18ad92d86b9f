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
 * @module
 */
import { isSecretKey, REDACTED } from "../events/mod.ts";
import type { Declaration, Entry } from "./declaration.ts";

/** Reads one environment variable. */
export type EnvReader = (name: string) => string | undefined;

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

/** Replaces every occurrence of each secret (4+ characters) in `text` with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret containing another is replaced whole.
  const sorted = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const s of sorted) out = out.split(s).join(REDACTED);
  return out;
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
