/**
 * The starter hooks `hooks init` writes, embedded (a compiled binary needs no files), and the
 * declaration snippet for each kind.
 *
 * @module
 */
import moduleTs from "./templates/module.ts.txt" with { type: "text" };
import commandSh from "./templates/command.sh.txt" with { type: "text" };
import remoteTs from "./templates/remote.ts.txt" with { type: "text" };
import spawnContext from "./templates/session_spawn.context.json.txt" with { type: "text" };
import startContext from "./templates/work_item_start.context.json.txt" with { type: "text" };

/** The kinds `hooks init` can write. */
export const KINDS = ["module", "command", "remote"] as const;
/** A kind of starter hook. */
export type Kind = typeof KINDS[number];

/** One starter: its files (by suffix after the name) and the point its sample context is for. */
export interface Starter {
  /** The hook file's suffix, e.g. `.ts`; the context file is always `.context.json`. */
  suffix: string;
  /** The hook file's text, with `{{…}}` placeholders. */
  text: string;
  /** File mode of the hook file. */
  mode: number;
  /** The point of the sample context. */
  point: "session_spawn" | "work_item_start";
  context: string;
}

/** The starter of each kind. */
export const STARTERS: Record<Kind, Starter> = {
  module: {
    suffix: ".ts",
    text: moduleTs,
    mode: 0o644,
    point: "session_spawn",
    context: spawnContext,
  },
  command: {
    suffix: ".sh",
    text: commandSh,
    mode: 0o755,
    point: "work_item_start",
    context: startContext,
  },
  remote: {
    suffix: ".server.ts",
    text: remoteTs,
    mode: 0o644,
    point: "session_spawn",
    context: spawnContext,
  },
};

/** `house-policy` → `HousePolicy`. */
export function className(name: string): string {
  return name.split("-").filter((w) => w).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

/** Replaces every `{{key}}` in `text`. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (m, k: string) => values[k] ?? m);
}

/** What the snippet needs. */
export interface SnippetOptions {
  name: string;
  kind: Kind;
  /** The hook file, relative to the config file's directory. */
  path: string;
  port: number;
  /** Start with the `hooks:` line (default true); false when the file already has that key. */
  header?: boolean;
}

/** The declaration to paste, as YAML under `hooks:`. */
export function snippet(o: SnippetOptions): string {
  const q = JSON.stringify;
  const lines = [...(o.header === false ? [] : ["hooks:"]), `  - name: ${o.name}`];
  if (o.kind === "module") lines.push(`    path: ${q(o.path)}`);
  else if (o.kind === "command") {
    const argv0 = o.path.startsWith("/") || o.path.startsWith(".") ? o.path : `./${o.path}`;
    lines.push(`    command: [${q(argv0)}]`, "    on: [work_item_start, phase_changed]");
  } else {
    lines.push(`    url: http://127.0.0.1:${o.port}/`, "    on: [work_item_start, session_spawn]");
  }
  return lines.join("\n") + "\n";
}
