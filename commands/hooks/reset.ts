/**
 * `the-loop hooks reset <name> [--format text|json]`: re-arms a hook's open circuit by removing
 * the file a daemon wrote under `<state.root>/hooks/circuits/` when it opened. The daemon looks
 * for that file before it skips a call, so its next call of the hook goes through as a probe:
 * if it works the circuit closes (`hooks.circuit_closed` {after: reset}), if not it opens again.
 * A hook whose circuit is not open is left as it is (exit 0).
 *
 * @module
 */
import type { Command } from "commander";
import { didYouMean } from "../../config/mod.ts";
import { messageOf, plural, UsageError } from "../../errors.ts";
import { FileCircuitStore } from "../../lifecycle/mod.ts";
import { type CliContext, println } from "../context.ts";
import { formatOption, toJson } from "../_output.ts";
import { readDeclaration } from "../_declaration.ts";
import { readCircuits } from "./_circuits.ts";

interface ResetFlags {
  format: "text" | "json";
}

/** Registers `hooks reset`. */
export function register(hooks: Command, ctx: CliContext): void {
  const cmd = hooks.command("reset")
    .description(
      "re-arm a hook's open circuit: the daemon lets its next call through as a probe",
    )
    .argument("<name>", "the hook's declared name");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((name: string, flags: ResetFlags) => reset(ctx, name, flags));
}

async function reset(ctx: CliContext, name: string, flags: ResetFlags): Promise<void> {
  const { loaded, decl } = await readDeclaration(ctx);
  const root = loaded.config.state.root;
  const names = decl.entries.map((e) => e.name);
  const [was] = (await readCircuits(root, [name])).values();
  // a hook taken out of the declaration may still have a file: that one can be reset too
  if (!names.includes(name) && was?.state !== "open") {
    const guess = didYouMean(name, names);
    throw new UsageError(
      `no hook named "${name}" in ${loaded.path ?? "the config (no file found)"}` +
        `${guess ? ` (did you mean ${guess}?)` : ""}; 'the-loop hooks' lists them`,
    );
  }
  if (was.state === "unknown") throw new Error(`hook "${name}": ${was.file}: ${was.error}`);
  const removed = was.state === "open" &&
    await new FileCircuitStore(root).remove(name).catch((err) => {
      throw new Error(
        `hook "${name}": cannot remove ${was.file}: ${messageOf(err)}; ` +
          "run this as the user the daemon runs as",
      );
    });
  if (flags.format === "json") {
    ctx.write(toJson({ hook: name, reset: removed, was }));
    return;
  }
  if (!removed) {
    println(ctx, `hook ${name}: its circuit is not open; nothing to reset`);
    return;
  }
  const w = was as Extract<typeof was, { state: "open" }>;
  println(
    ctx,
    `hook ${name}: circuit re-armed (it was open since ${w.opened_at} after ` +
      `${plural(w.failures, "failure")}; last: ${w.last_error}). The daemon lets its next ` +
      "call through as a probe: if it works the circuit closes, if not it opens again",
  );
}
