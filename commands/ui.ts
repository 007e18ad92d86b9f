/**
 * `the-loop ui [--root DIR] [--host H] [--port N]`: serves the status page (`docs/ui.md`) in the
 * foreground until SIGINT/SIGTERM, from a state root, with or without a daemon running (without
 * one, `reply` and `verdict` answer that no daemon runs; pause, resume and stop work as their
 * CLI verbs do). Prints one ready line:
 *
 *     ui: the status page is at http://127.0.0.1:8788/
 *
 * `--root DIR` serves DIR: its `cli-config.yaml` when it has one, else the defaults with
 * `state.root: DIR`; without it, the config found as every command finds it. `--host` and
 * `--port` (0 picks a free port) replace `ui.host` and `ui.port`. It serves even when
 * `ui.enabled` is false (that key is the daemons'). The page itself is `startUi` (`ui/mod.ts`).
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, join } from "node:path";
import type { LoadedConfig } from "../config/mod.ts";
import { UsageError } from "../errors.ts";
import { loadCliConfig } from "./_config.ts";
import { type CliContext, println } from "./context.ts";
import { serveUi } from "./_ui.ts";

interface Flags {
  root?: string;
  host?: string;
  port?: string;
}

/** Registers `ui`. */
export function register(program: Command, ctx: CliContext): void {
  program.command("ui")
    .description("serve the live status page of a state root until SIGINT/SIGTERM")
    .option("--root <dir>", "the state root to serve (default: the config's state.root)")
    .option("--host <host>", "interface to bind (default: ui.host)")
    .option("--port <port>", "port to listen on; 0 picks a free one (default: ui.port)")
    .action((flags: Flags) => run(flags, ctx));
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** The config of `--root DIR` (see the module doc), else the usual one. */
async function configOf(flags: Flags, ctx: CliContext): Promise<LoadedConfig> {
  if (flags.root === undefined) return await loadCliConfig(ctx);
  const root = isAbsolute(flags.root) ? flags.root : join(ctx.cwd, flags.root);
  const { configFromText, loadConfig } = await import("../config/mod.ts");
  const own = join(root, "cli-config.yaml");
  if (await exists(own)) return await loadConfig({ flag: own, env: ctx.env, cwd: ctx.cwd });
  const text = `state:\n  root: ${JSON.stringify(root)}\n`;
  // read as if it were DIR's own file (there is none), so its one key is checked as usual
  const { config, locate } = await configFromText(text, { file: own, env: ctx.env, cwd: root });
  return {
    path: null,
    source: "none",
    searched: [],
    origin: `no config file: the defaults, with state.root ${root}`,
    baseDir: root,
    config,
    locate,
    text: null,
  };
}

async function run(flags: Flags, ctx: CliContext): Promise<void> {
  const interrupted = ctx.interrupted();
  let port: number | undefined;
  if (flags.port !== undefined) {
    port = Number(flags.port);
    if (!/^\d+$/.test(flags.port.trim()) || port > 65535) {
      throw new UsageError(`--port: must be an integer from 0 to 65535 (got "${flags.port}")`);
    }
  }
  if (flags.host !== undefined && !flags.host.trim()) throw new UsageError("--host is empty");
  const loaded = await configOf(flags, ctx);
  const stop = new AbortController();
  const { server, events } = await serveUi(ctx, loaded, {
    host: flags.host?.trim(),
    port,
    signal: stop.signal,
  });
  println(ctx, `ui: the status page is at ${server.url}`);
  await interrupted;
  await server.close();
  events.close();
  println(ctx, "ui: stopped");
}
