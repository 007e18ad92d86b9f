/**
 * Shared by the `the-loop hooks` CLI tests: temp trees with a cli-config.yaml, hook files, a
 * free loopback port, and a real `serveHooks` server.
 *
 * @module
 */
import { join } from "node:path";
import {
  LifecycleHooks,
  serveHooks,
  type SessionSpawn,
  type WorkItemStart,
} from "../lifecycle/mod.ts";

/** The repository root (for `deno run --config` of generated remote servers). */
export const ROOT = new URL("..", import.meta.url).pathname;

/** A real temp dir holding `files` (relative path → content; `mode` via a `[text, mode]` pair). */
export function tree(files: Record<string, string | [string, number]> = {}): string {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "the-loop-hooks-cli-" }));
  for (const [rel, spec] of Object.entries(files)) {
    const [text, mode] = typeof spec === "string" ? [spec, 0o644] : spec;
    const path = join(dir, rel);
    Deno.mkdirSync(join(path, ".."), { recursive: true });
    Deno.writeTextFileSync(path, text, { mode });
    Deno.chmodSync(path, mode);
  }
  return dir;
}

/** A loopback port nothing listens on (bound, read, released). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A module hook: prefixes the prompt with its `with: {tag}`, refuses mallory. */
export const TAGGER =
  `import { LifecycleHooks, type SessionSpawn, type WorkItemStart } from "@the-loop/hooks";
export default class Tagger extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    if (ctx.actor === "mallory") return { proceed: false, reason: "mallory is not on the roster" };
  }
  override session_spawn(ctx: SessionSpawn) {
    return { prompt: "[" + String(this.options.tag ?? "tag") + "] " + ctx.prompt };
  }
}
`;

/** A sample session_spawn context (work items as bare refs). */
export const SPAWN_CONTEXT = {
  work_item: "github:acme/app#42",
  endpoint: "github:acme/app#42",
  harness: "claude",
  cwd: "/tmp/acme-app-42",
  model: "",
  effort: "",
  harness_args: [],
  respawn: false,
  loop: "pdlc-work-item-loop",
  prompt: "Implement issue #42.",
};

/** A sample work_item_start context. */
export const START_CONTEXT = {
  work_item: "github:acme/app#42",
  loop: "pdlc-work-item-loop",
  command: "start",
  actor: "octocat",
  harness: "claude",
  instance: "",
};

class Remote extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    if (ctx.actor === "mallory") return { proceed: false, reason: "remote says no" };
  }
  override session_spawn(ctx: SessionSpawn) {
    return { prompt: `remote: ${ctx.prompt}` };
  }
}

/** A real `serveHooks` server on loopback; with `tokenEnv` it demands that bearer token. */
export function remoteServer(opts: { tokenEnv?: string } = {}) {
  const ac = new AbortController();
  const server = serveHooks(new Remote(), {
    port: 0,
    tokenEnv: opts.tokenEnv,
    signal: ac.signal,
    onListen() {},
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

/** The lines of `stdout` from `hooks:` up to the next blank line: the snippet `hooks init` prints. */
export function snippetOf(stdout: string): string {
  const lines = stdout.split("\n");
  const start = lines.indexOf("hooks:");
  if (start < 0) throw new Error(`no snippet in:\n${stdout}`);
  const end = lines.indexOf("", start);
  return lines.slice(start, end).join("\n") + "\n";
}
