/**
 * Shared by the hook engine's end-to-end tests: a real cli-config.yaml and real hook files in a
 * temp dir, read by the real config loader and installed through the process-wide seam.
 *
 * @module
 */
import { join } from "node:path";
import { loadConfig, type LoadedConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import * as engine from "../lifecycle/engine.ts";

/** The runner tests' work_item_start context, shared with the unit tests. */
export { startCtx } from "../lifecycle/_runner_fakes_test_util.ts";

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
