/**
 * A hook's permission grants → the exact options its worker is created with. Nothing is
 * granted unless the declaration says so.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { HookLoadError } from "../../executor.ts";
import { unnamed } from "../../_messages.ts";
import { realTarget } from "./_real_path.ts";

/** The permission kinds a hook can be granted, as Deno names them. */
export const PERMISSION_KINDS = [
  "read",
  "write",
  "net",
  "env",
  "run",
  "ffi",
  "sys",
  "import",
] as const;

/** One permission kind. */
export type PermissionKind = typeof PERMISSION_KINDS[number];

/**
 * A hook's grants, e.g. `{net: ["127.0.0.1:8080"], read: ["./data"], env: ["ROSTER_TOKEN"]}`.
 * A list grants exactly those hosts/paths/names; `true` grants the whole kind; absent or
 * `false` grants nothing.
 */
export type Grants = Partial<Record<PermissionKind, boolean | string[]>>;

const PATH_KINDS = new Set<PermissionKind>(["read", "write", "ffi"]);

/**
 * `paths` and, after each, where it really leads when that differs (a granted path that is a
 * symlink, or lies under one): Deno matches a path as written, so both spellings must pass it.
 * The worker's file guard (`_runtime_fs.ts`) then holds every access to the real paths.
 */
function withRealPaths(paths: string[]): string[] {
  const out: string[] = [];
  for (const path of paths) {
    if (!out.includes(path)) out.push(path);
    let real: string;
    try {
      real = realTarget(resolve(path), { follow: true });
    } catch {
      continue; // a link loop: only the path as written, which Deno cannot open either
    }
    if (!out.includes(real)) out.push(real);
  }
  return out;
}

/**
 * The worker permissions for `grants`: every kind present, `false` unless granted. Relative
 * paths (read, write, ffi; run entries containing a `/`) resolve against `baseDir`, the
 * declaring config file's directory; a read or write path that is (or lies under) a symlink
 * is granted under its real path too. Throws {@linkcode HookLoadError} on an unknown kind or a
 * value that is neither a boolean nor a list of strings.
 */
export function workerPermissions(
  grants: Grants | undefined,
  baseDir: string,
): Deno.PermissionOptionsObject {
  const out: Record<string, boolean | string[]> = {};
  for (const kind of PERMISSION_KINDS) out[kind] = false;
  for (const [key, value] of Object.entries(grants ?? {})) {
    if (!(PERMISSION_KINDS as readonly string[]).includes(key)) {
      throw new HookLoadError(unnamed.unknownPermission(key, PERMISSION_KINDS));
    }
    const kind = key as PermissionKind;
    if (typeof value === "boolean") {
      out[kind] = value;
    } else if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
      const pathLike = (v: string) => PATH_KINDS.has(kind) || (kind === "run" && v.includes("/"));
      const listed = value.map((v) => pathLike(v) && !isAbsolute(v) ? resolve(baseDir, v) : v);
      out[kind] = kind === "read" || kind === "write" ? withRealPaths(listed) : listed;
    } else {
      throw new HookLoadError(unnamed.permissionValue(kind, value));
    }
  }
  return out as Deno.PermissionOptionsObject;
}
