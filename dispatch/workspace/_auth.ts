/**
 * The token's one path into git: configuration by environment (`GIT_CONFIG_COUNT`,
 * `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n`), an `http.<origin>/.extraHeader` carrying
 * `Authorization: Basic base64(x-access-token:TOKEN)`. Nothing is written to `.git/config`,
 * nothing is in an argv (so not in a process listing), and the header is scoped to the remote's
 * own origin so a redirect elsewhere never receives it. {@linkcode redact} takes the token (and
 * its encoded form) out of any text git printed before that text reaches an error or event.
 *
 * @module
 */
import type { EnvReader } from "../../config/types.ts";

const REDACTED = "[redacted]";

/** The origin (`https://host[:port]/`) of an http(s) remote; `undefined` for any other kind. */
export function httpOrigin(remoteUrl: string): string | undefined {
  if (!/^https?:\/\//i.test(remoteUrl)) return undefined;
  try {
    const url = new URL(remoteUrl);
    return `${url.protocol}//${url.host}/`;
  } catch {
    return undefined;
  }
}

function basic(token: string): string {
  return btoa(`x-access-token:${token}`);
}

/**
 * The environment that authenticates git to `remoteUrl` with `token`: empty for a remote that
 * is not http(s) (a local path, ssh) or without a token. Config-by-environment entries already
 * in `env` are kept: ours is appended after them.
 */
export function authEnv(
  remoteUrl: string,
  token: string | undefined,
  env: EnvReader,
): Record<string, string> {
  const origin = httpOrigin(remoteUrl);
  if (!origin || !token) return {};
  const count = Number(env("GIT_CONFIG_COUNT") ?? "0");
  const n = Number.isSafeInteger(count) && count > 0 ? count : 0;
  return {
    GIT_CONFIG_COUNT: String(n + 1),
    [`GIT_CONFIG_KEY_${n}`]: `http.${origin}.extraHeader`,
    [`GIT_CONFIG_VALUE_${n}`]: `Authorization: Basic ${basic(token)}`,
  };
}

/** `text` with `token`, its Basic form and any credentials in a URL replaced. */
export function redact(text: string, token: string | undefined): string {
  let out = text.replace(/(https?:\/\/)[^/@\s]+@/gi, `$1${REDACTED}@`);
  if (token) {
    out = out.split(basic(token)).join(REDACTED).split(token).join(REDACTED);
  }
  return out;
}
