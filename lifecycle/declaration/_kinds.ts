/**
 * The kind-specific halves of a hook entry: a module (`path:`), a remote (`url:`), a command
 * (`command:`). Each checks only its own keys and returns the resolved fields; nothing is
 * imported, read or contacted.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { isMapping } from "../../config/mod.ts";
import { looksLikeToken, tokenNotName } from "../../config/secrets.ts";
import { type EntryCheck, ENV_NAME, isTokenNotName, show } from "./_check.ts";
import type { Grants } from "../../config/mod.ts";

/** Where relative paths resolve and what `~` means. */
export interface Resolve {
  baseDir: string;
  home?: string;
}

/** Resolves `p` against the config file's directory (`~` is HOME); never the cwd. */
export function resolvePath(p: string, r: Resolve): string | undefined {
  if (p === "~" || p.startsWith("~/")) {
    if (!r.home) return undefined;
    return resolve(r.home, p === "~" ? "." : p.slice(2));
  }
  return isAbsolute(p) ? resolve(p) : resolve(r.baseDir, p);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NET =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]|[0-9.]+)(?::\d{1,5})?$/;
const ENV_GRANT = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;
const NEVER: Record<string, string> = {
  run:
    "it would let the hook start any program outside its sandbox (declare a command: hook instead)",
  ffi: "it would let the hook load native code and escape its sandbox",
  sys: "it exposes the host's system information and is not needed by a hook",
  import: "a hook module is bundled from the operator's files; it may not fetch code at run time",
};

function grantList(e: EntryCheck, v: unknown, key: string): true | string[] | undefined {
  if (v === true) return true;
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string" || s === "")) {
    e.err(["permissions", key], `must be true or a list of non-empty strings (got ${show(v)})`);
    return undefined;
  }
  return v as string[];
}

function permissions(e: EntryCheck, r: Resolve): Grants {
  const raw = e.raw.permissions;
  if (raw === undefined) return {};
  if (!isMapping(raw)) {
    e.err(["permissions"], `must be a mapping of net, read, write, env (got ${show(raw)})`);
    return {};
  }
  const out: Grants = {};
  for (const [key, v] of Object.entries(raw)) {
    if (Object.hasOwn(NEVER, key)) {
      e.err(["permissions", key], `"${key}" is never grantable to a hook module: ${NEVER[key]}`);
      continue;
    }
    if (!["net", "read", "write", "env"].includes(key)) {
      e.err(
        ["permissions", key],
        `unknown permission "${key}" (expected one of: net, read, write, env)`,
      );
      continue;
    }
    const list = grantList(e, v, key);
    if (list === undefined) continue;
    if (list === true) {
      out[key as keyof Grants] = true;
      continue;
    }
    const checked: string[] = [];
    list.forEach((item, i) => {
      const here = ["permissions", key, i];
      if (key === "net" && !NET.test(item)) {
        e.err(
          here,
          `a net grant is host or host:port, e.g. roster.acme.example:443 (got ${show(item)})`,
        );
      } else if (key === "env" && isTokenNotName(item)) {
        e.err(here, tokenNotName());
      } else if (key === "env" && !ENV_GRANT.test(item)) {
        e.err(
          here,
          `must be an environment variable name, optionally ending in * (got ${show(item)})`,
        );
      } else if (key === "read" || key === "write") {
        const p = resolvePath(item, r);
        if (p === undefined) e.err(here, `"~" needs HOME to be set (got ${show(item)})`);
        else checked.push(p);
      } else checked.push(item);
    });
    out[key as keyof Grants] = checked;
  }
  return out;
}

/** The fields of a `path:` entry. */
export function moduleFields(e: EntryCheck, r: Resolve) {
  const raw = e.raw.path;
  let path: string | undefined;
  if (typeof raw !== "string" || raw === "") {
    e.err(["path"], `must be a non-empty file path (got ${show(raw)})`);
  } else if (SCHEME.test(raw) && !/^[A-Za-z]:[\\/]/.test(raw)) {
    e.err(
      ["path"],
      `must be a file path, not a URL or specifier (got ${show(raw)}); use url: for a remote hook`,
    );
  } else {
    path = resolvePath(raw, r);
    if (path === undefined) e.err(["path"], `"~" needs HOME to be set (got ${show(raw)})`);
  }
  const options = e.raw.with;
  if (options !== undefined && !isMapping(options)) {
    e.err(
      ["with"],
      `must be a mapping of options for the hook's constructor (got ${show(options)})`,
    );
  }
  const isolation = e.raw.isolation ?? "worker";
  if (isolation !== "worker" && isolation !== "process") {
    e.err(["isolation"], `must be worker or process (got ${show(isolation)})`);
  }
  return {
    path: path ?? "",
    exportName: e.str("executor", { pattern: IDENT, what: "an exported name, e.g. Policy" }),
    options: isMapping(options) ? options : undefined,
    permissions: permissions(e, r),
    isolation: (isolation === "process" ? "process" : "worker") as "worker" | "process",
    maxMemoryMb: e.positive("maxMemoryMb", 128, { integer: true, min: 16, unit: "megabytes" }),
  };
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const HEADER = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NO_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

/** The fields of a `url:` entry. */
export function remoteFields(e: EntryCheck) {
  const tokenEnv = e.str("tokenEnv", {
    pattern: ENV_NAME,
    what: "an environment variable NAME",
    envName: true,
  });
  const raw = e.raw.url;
  let url: URL | undefined;
  try {
    if (typeof raw === "string") url = new URL(raw);
  } catch { /* reported below */ }
  if (!url) e.err(["url"], `must be an absolute https:// URL (got ${show(raw)})`);
  else if (url.username || url.password) {
    e.err(
      ["url"],
      "must not carry credentials; put the token in an environment variable and name it in tokenEnv",
    );
  } else if (url.protocol === "http:" && !LOOPBACK.has(url.hostname)) {
    e.err(
      ["url"],
      tokenEnv
        ? `http:// to ${url.hostname} is refused: a bearer token would cross the network in cleartext; use https://`
        : `http:// to ${url.hostname} is refused: a hook's answer can refuse or reword the-loop's work, and a cleartext answer can be forged on the way; use https:// (http:// is for localhost only)`,
    );
  } else if (url.protocol !== "https:" && url.protocol !== "http:") {
    e.err(["url"], `must be an https:// URL (got scheme ${url.protocol})`);
  }
  const headers: Record<string, string> = {};
  const rawHeaders = e.raw.headers;
  if (rawHeaders !== undefined && !isMapping(rawHeaders)) {
    e.err(["headers"], `must be a mapping of header name to value (got ${show(rawHeaders)})`);
  } else if (rawHeaders) {
    for (const [name, value] of Object.entries(rawHeaders)) {
      if (!HEADER.test(name)) e.err(["headers", name], "is not a valid HTTP header name");
      else if (looksLikeToken(name)) {
        e.err(
          ["headers", name],
          "this header name looks like a token: credentials never live in the config; " +
            "name the token's variable in tokenEnv",
        );
      } else if (NO_HEADERS.has(name.toLowerCase())) {
        e.err(
          ["headers", name],
          `may not be set in the config: credentials never live there; name the token's variable in tokenEnv`,
        );
      } else if (typeof value !== "string" || /[\r\n]/.test(value)) {
        e.err(["headers", name], "must be a one-line string (quote numbers)");
      } else headers[name] = value;
    }
  }
  return { url: url?.href ?? "", tokenEnv, headers };
}

/** The fields of a `command:` entry. */
export function commandFields(e: EntryCheck, r: Resolve) {
  const raw = e.raw.command;
  let argv: string[] = [];
  if (typeof raw === "string") {
    e.err(
      ["command"],
      `must be an argv list, never a shell string: e.g. ["./hooks/audit.py", "--strict"]`,
    );
  } else if (
    !Array.isArray(raw) || raw.length === 0 || raw.some((a) => typeof a !== "string") ||
    raw[0] === ""
  ) {
    e.err(["command"], `must be a non-empty list of strings, the program first (got ${show(raw)})`);
  } else {
    argv = [...raw];
    if (argv[0].includes("/") || argv[0].startsWith("~")) {
      const p = resolvePath(argv[0], r);
      if (p === undefined) e.err(["command", 0], `"~" needs HOME to be set`);
      else argv[0] = p;
    }
  }
  return {
    argv,
    cwd: r.baseDir,
    env: e.names("env", ENV_NAME, "an environment variable name", { envNames: true }) ?? [],
    maxOutputBytes: e.positive("maxOutputBytes", 65536, {
      integer: true,
      min: 1024,
      unit: "bytes",
    }),
  };
}
