/**
 * Shared setup of the hook-example tests: a real `cli-config.yaml` in a temp directory, read by
 * the real config loader and loaded by the real engine (strict, as a daemon does), with a
 * {@linkcode MemorySink} to assert on.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { loadConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import * as engine from "../lifecycle/engine.ts";
import type { Runner } from "../lifecycle/runner.ts";

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
