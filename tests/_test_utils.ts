/**
 * The tests' helpers, in one place (as std's `_test_utils.ts`): spawning the real CLI with the
 * flags of the `the-loop` task, temp trees with a cli-config.yaml and hook files, a daemon's
 * project with its config loaded, a bounded wait, a free loopback port and a real `serveHooks`
 * server, and the real engine configured from a real config (for the runner and hook-example
 * tests).
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../deno.json" with { type: "json" };
import { delay } from "../async/mod.ts";
import { loadConfig, type LoadedConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import * as engine from "../lifecycle/mod.ts";
import type { Runner } from "../lifecycle/mod.ts";
import type { SessionRecord } from "../state/registry.ts";
import {
  LifecycleHooks,
  serveHooks,
  type SessionSpawn,
  type WorkItemStart,
} from "../lifecycle/sdk/mod.ts";

// ---- cli ----

/**
 * The variables every spawned CLI keeps: PATH, and Deno's cache so nothing is re-transpiled;
 * and `THE_LOOP_UI_PORT=0`, so the status page a daemon serves takes a free port (tests run in
 * parallel; the default port would be one page's only).
 */
export function baseEnv(home: string): Record<string, string> {
  const origHome = Deno.env.get("HOME") ?? "/root";
  return {
    HOME: home,
    NO_COLOR: "1",
    THE_LOOP_UI_PORT: "0",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${origHome}/.cache/deno`,
  };
}

/** The argv after `deno` in the `the-loop` task, with `main.ts` made absolute. */
export function taskArgs(): string[] {
  const words = denoJson.tasks["the-loop"].split(/\s+/);
  if (words[0] !== "deno") throw new Error("the-loop task must start with 'deno'");
  return words.slice(1).map((w) => (w === "main.ts" ? `${ROOT}main.ts` : w));
}

/** What a finished CLI run printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for {@linkcode cli}. */
export interface CliOptions {
  /** Working directory; default: a directory with no `.the-loop/` in it. */
  cwd?: string;
  /** Environment overrides; `HOME` defaults to `cwd` so `~/.the-loop` never leaks in. */
  env?: Record<string, string>;
  /** Text fed to stdin. */
  stdin?: string;
}

/** Runs `the-loop <args>` to completion. */
export async function cli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const cwd = opts.cwd ?? Deno.makeTempDirSync({ prefix: "the-loop-cli-" });
  const env = { ...baseEnv(cwd), ...opts.env };
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(), ...args],
    cwd,
    env,
    clearEnv: true,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = cmd.spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Starts `the-loop <args>` and leaves it running (for `--follow` and daemons). */
export function spawnCli(args: string[], opts: CliOptions = {}): Deno.ChildProcess {
  const cwd = opts.cwd ?? Deno.makeTempDirSync({ prefix: "the-loop-cli-" });
  return new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(), ...args],
    cwd,
    env: { ...baseEnv(cwd), ...opts.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * A spawned CLI's stdout and stderr, read as they arrive: `out` holds what came so far, `done`
 * resolves once both streams ended.
 */
export function readOutput(
  child: Deno.ChildProcess,
): { out: { stdout: string; stderr: string }; done: Promise<void> } {
  const out = { stdout: "", stderr: "" };
  const read = async (stream: ReadableStream<Uint8Array>, key: "stdout" | "stderr") => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) out[key] += chunk;
  };
  return {
    out,
    done: Promise.all([read(child.stdout, "stdout"), read(child.stderr, "stderr")]).then(() => {}),
  };
}

// ---- hooks cli util ----
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

/** What {@linkcode daemonProject} made. */
export interface DaemonProject {
  /** The project folder: the daemon's working directory. */
  dir: string;
  /** Its `.the-loop/` (the state root by default). */
  root: string;
  /** The environment the config was loaded with: `vars` and nothing else. */
  env: (name: string) => string | undefined;
  loaded: LoadedConfig;
}

/**
 * A project folder whose `.the-loop/cli-config.yaml` is `lines`, and its config loaded as a
 * daemon started in it finds it, with `vars` as the whole environment: what the in-process
 * `startPoller` and `startReceiver` tests hand the daemon.
 */
export async function daemonProject(
  lines: string[],
  vars: Record<string, string>,
): Promise<DaemonProject> {
  const dir = tree({ ".the-loop/cli-config.yaml": [...lines, ""].join("\n") });
  const env = (name: string) => vars[name];
  return { dir, root: join(dir, ".the-loop"), env, loaded: await loadConfig({ env, cwd: dir }) };
}

/** What {@linkcode until} may be told besides its check. */
export interface UntilOptions {
  /** The bound, in ms (default 30 s): it only fails a hung test. */
  ms?: number;
  /** Said with the timeout: what explains it (a daemon's stderr so far, say). */
  detail?: () => string;
}

/**
 * Waits until `check` holds, looking again every 25 ms; throws naming `what` (and `detail`) after
 * `ms` (a bound that only fails a hung test). For the CLI tests that watch a daemon's output or
 * files.
 */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  opts: number | UntilOptions = 30_000,
): Promise<void> {
  const { ms = 30_000, detail } = typeof opts === "number" ? { ms: opts } : opts;
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}${detail ? `\n${detail()}` : ""}`);
    }
    await delay(25);
  }
}

/**
 * Stops a spawned CLI with `signal` and waits for it, for a test's `finally`: a child that has
 * already exited is not an error here (that would hide the test's own failure); its status is
 * returned for the test to judge.
 */
export async function stopChild(
  child: Deno.ChildProcess,
  signal: Deno.Signal = "SIGTERM",
): Promise<Deno.CommandStatus> {
  try {
    child.kill(signal);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error; // "Child process has already terminated"
  }
  return await child.status;
}

/**
 * A check of a `--format json` document against `schema/cli/<name>.json` (with the envelope it
 * refers to): it fails the test with ajv's account of what does not validate.
 */
export async function cliSchema(name: string): Promise<(doc: unknown) => void> {
  const { Ajv2020 } = await import("ajv/dist/2020.js"); // only the tests that check documents
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  for (const schema of ["envelope", name]) {
    const url = new URL(`../schema/cli/${schema}.json`, import.meta.url);
    ajv.addSchema(JSON.parse(await Deno.readTextFile(url)));
  }
  const validate = ajv.getSchema(`${name}.json`)!;
  return (doc) => assert.ok(validate(doc), ajv.errorsText(validate.errors));
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

// ---- lifecycle util ----
/** The runner tests' work_item_start context, shared with the unit tests. */
export { startCtx } from "../lifecycle/_test_utils.ts";

/** A temp dir with `cli-config.yaml` (`yaml`) and `files` (executable when `.sh`). */
export async function hookTree(yaml: string, files: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "lifecycle-e2e-" });
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text, { mode: rel.endsWith(".sh") ? 0o755 : 0o644 });
  }
  await Deno.writeTextFile(join(dir, "cli-config.yaml"), yaml);
  return dir;
}

/** What {@linkcode configured} installed, and where its output went. */
export interface Configured {
  dir: string;
  loaded: LoadedConfig;
  sink: MemorySink;
  warnings: string[];
  /** Resets the engine and removes the temp dir. */
  cleanup(): Promise<void>;
}

/** Writes the tree, loads its config and configures the engine from it. */
export async function configured(
  yaml: string,
  files: Record<string, string>,
  opts: { strict: boolean; env?: (name: string) => string | undefined },
): Promise<Configured> {
  const dir = await hookTree(yaml, files);
  const env = opts.env ?? ((n: string) => (n === "HOME" ? dir : Deno.env.get(n)));
  const sink = new MemorySink({ strict: true });
  const warnings: string[] = [];
  const cleanup = async () => {
    await engine.reset();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const loaded = await loadConfig({ flag: join(dir, "cli-config.yaml"), env, cwd: dir });
    await engine.configureFromConfig(loaded, {
      strict: opts.strict,
      sink,
      env,
      warn: (m) => warnings.push(m),
    });
    return { dir, loaded, sink, warnings, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** A module hook whose work_item_start runs `body` (TypeScript, `ctx` in scope). */
export function moduleHook(body: string): string {
  return `import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";
export class Hook extends LifecycleHooks {
  override async work_item_start(ctx: WorkItemStart) {
    ${body}
  }
}
`;
}

// ---- hooks examples ----
/** Absolute path of a file in `hooks-examples/`. */
export function example(name: string): string {
  return fileURLToPath(new URL(`../hooks-examples/${name}`, import.meta.url));
}

/** What {@linkcode withHooks} hands its body. */
export interface Engine {
  runner: Runner;
  sink: MemorySink;
  warnings: string[];
  /** The config file's directory. */
  dir: string;
}

/** Options for {@linkcode withHooks}. */
export interface WithHooksOptions {
  /** Files written into the config directory first, by relative name. */
  files?: Record<string, string>;
  /** The environment the engine sees (besides PATH and HOME). */
  env?: Record<string, string>;
}

/**
 * Writes `hooks:` (built from the config directory) as a real config, loads it strictly, runs
 * `body`, and resets the engine and removes the directory afterwards.
 */
export async function withHooks(
  hooksYaml: (dir: string) => string,
  opts: WithHooksOptions,
  body: (e: Engine) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "hooks-example-" });
  const vars: Record<string, string | undefined> = {
    PATH: Deno.env.get("PATH"),
    HOME: dir,
    ...opts.env,
  };
  const env = (name: string) => vars[name];
  try {
    for (const [name, text] of Object.entries(opts.files ?? {})) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    await Deno.writeTextFile(`${dir}/cli-config.yaml`, `hooks:\n${hooksYaml(dir)}`);
    const loaded = await loadConfig({ flag: `${dir}/cli-config.yaml`, env, cwd: dir });
    const sink = new MemorySink({ strict: true });
    const warnings: string[] = [];
    const runner = await engine.configureFromConfig(loaded, {
      strict: true,
      sink,
      env,
      warn: (m) => warnings.push(m),
    });
    await body({ runner, sink, warnings, dir });
  } finally {
    await engine.reset();
    await Deno.remove(dir, { recursive: true });
  }
}

/** `[hook, disposition, changed]` of every `hooks.ran` record, for compact assertions. */
export function ran(sink: MemorySink): [unknown, unknown, unknown][] {
  return sink.ofType("hooks.ran").map((r) => [r.hook, r.disposition, r.changed]);
}

/**
 * The SIGKILL trial's loop: starts `poll start --once` in `cwd` again and again, kills each with
 * SIGKILL after a random delay (at most `maxDelayMs`, or less while kills lag behind attempts),
 * until `trials` kills landed on a running poller (a run may finish before its kill). Returns
 * how many landed.
 */
export async function pollKillTrials(
  o: { cwd: string; env: Record<string, string>; trials: number; maxDelayMs: number },
): Promise<number> {
  let kills = 0;
  for (let attempt = 0; kills < o.trials && attempt < o.trials * 10; attempt++) {
    const child = spawnCli(["poll", "start", "--once"], { cwd: o.cwd, env: o.env });
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("poll: started")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    const delay = kills < attempt / 2 ? Math.min(60, o.maxDelayMs) : o.maxDelayMs;
    await new Promise((r) => setTimeout(r, Math.random() * delay));
    try {
      child.kill("SIGKILL");
    } catch { /* it finished its cycle first */ }
    if ((await child.status).signal === "SIGKILL") kills++;
    await reader.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
  }
  return kills;
}

/** A live, active claude session record for `ref` (`github:owner/repo#N`), as the registry keeps one. */
export function activeSession(ref: string): SessionRecord {
  const [, owner, repo, n] = /^github:([^/]+)\/([^#]+)#(\d+)$/.exec(ref)!;
  return {
    workItem: { ref, provider: "github", owner, repo, number: Number(n) },
    harness: "claude",
    harnessSessionId: "00000000-0000-4000-8000-000000000001",
    cwd: "/tmp",
    status: "active",
    createdAt: "2026-12-01T00:00:00Z",
    lastEventAt: null,
    tmuxTarget: "",
    recentDeliveries: [],
    url: "",
  };
}

/** Whether `tmux` runs on this machine (the tests that need it are ignored without it). */
export const hasTmux: boolean = (() => {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();
