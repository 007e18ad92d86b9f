/**
 * The hooks the runner benches load, through the real declaration parser and loader: N copies
 * of a trivial SDK hook (it passes every start but mallory's) written to a temp directory.
 *
 * @module
 */
import { parseDeclaration } from "../lifecycle/mod.ts";
import { loadExecutors } from "../lifecycle/mod.ts";
import type { RunnerEntry } from "../lifecycle/mod.ts";

/** A hook as small as a real one gets: reads a fact, passes. */
export const PASS_HOOK = `import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";
export default class Pass extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    if (ctx.actor === "mallory") return { proceed: false, reason: "not on the roster" };
  }
}
`;

/**
 * Loads `count` module entries of the hook, named `pass-1`…, writing it into `dir` first unless
 * it is there (rewriting it would invalidate the bundle cache).
 */
export async function loadPassHooks(dir: string, count: number): Promise<RunnerEntry[]> {
  await Deno.writeTextFile(`${dir}/pass.ts`, PASS_HOOK, { createNew: true }).catch((err) => {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  });
  const raw = Array.from({ length: count }, (_, i) => ({ name: `pass-${i + 1}`, path: "pass.ts" }));
  const decl = parseDeclaration(raw, { baseDir: dir, home: dir });
  const loaded = await loadExecutors(decl, { env: () => undefined, strict: true });
  if (loaded.problems.length > 0) {
    throw new Error(loaded.problems.map((p) => p.message).join("\n"));
  }
  return loaded.entries;
}
