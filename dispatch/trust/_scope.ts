/**
 * What harness trust writes where: the directory the trust entry goes on (the workspace root,
 * when it is meaningful and contains the spawn directory, else the spawn directory itself), the
 * harness's config files, and whether the harness was asked for bypass mode.
 *
 * @module
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import type { EnvReader } from "../../config/types.ts";

/** Where the trust entry goes, and why not on the root when it could not. */
export interface TrustTarget {
  dir: string;
  scope: "workspace-root" | "directory";
  /** Set when `workspace-root` was asked for but the root could not be used. */
  degraded?: { root: string; reason: "too-broad" | "not-containing" };
}

function contains(root: string, dir: string): boolean {
  const rel = relative(root, dir);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The trust entry's directory. `directory` scope, or no root: the spawn directory. A root of `/`
 * or `$HOME` itself is too broad to mean anything; a root not containing the spawn directory
 * would trust the wrong tree: both fall back to the spawn directory.
 */
export function trustTarget(o: {
  scope: "workspace-root" | "directory";
  root: string | null;
  cwd: string;
  home: string | undefined;
}): TrustTarget {
  const cwd = resolve(o.cwd);
  if (o.scope === "directory" || !o.root) return { dir: cwd, scope: "directory" };
  const root = resolve(o.root);
  if (root === "/" || (o.home && root === resolve(o.home))) {
    return { dir: cwd, scope: "directory", degraded: { root, reason: "too-broad" } };
  }
  if (!contains(root, cwd)) {
    return { dir: cwd, scope: "directory", degraded: { root, reason: "not-containing" } };
  }
  return { dir: root, scope: "workspace-root" };
}

/** Claude Code's files: the user config (`projects` map) and the user settings. */
export interface ClaudeFiles {
  config: string;
  settings: string;
}

/**
 * `$CLAUDE_CONFIG_DIR/.claude.json` and `$CLAUDE_CONFIG_DIR/settings.json` when the variable is
 * set, else `~/.claude.json` and `~/.claude/settings.json`. `undefined` with neither variable.
 */
export function claudeFiles(env: EnvReader): ClaudeFiles | undefined {
  const dir = env("CLAUDE_CONFIG_DIR");
  if (dir) return { config: join(dir, ".claude.json"), settings: join(dir, "settings.json") };
  const home = env("HOME");
  if (!home) return undefined;
  return { config: join(home, ".claude.json"), settings: join(home, ".claude", "settings.json") };
}

/** Whether `args` ask Claude Code for bypass mode. */
export function asksForBypass(args: readonly string[]): boolean {
  return args.some((arg, i) =>
    arg === "--dangerously-skip-permissions" ||
    arg === "--permission-mode=bypassPermissions" ||
    (arg === "--permission-mode" && args[i + 1] === "bypassPermissions")
  );
}
