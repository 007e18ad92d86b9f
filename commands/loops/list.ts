/**
 * `the-loop loops [--format text|json]`: every loop a work item can walk — the built-ins
 * (`adhoc`, `pdlc`) and the config's `loops:` — read strictly (exit 1 with every problem at
 * `file:line:col` when they do not read), each with its start and every node: id, phase, actor,
 * next, terminal, maxAttempts, prompt. The loop `routing.loop` picks is marked.
 *
 * `--format json` prints the envelope (`commands/_envelope.ts`, `schema/cli/loops.json`) in
 * every outcome; `loops` is `[]` on failure, and a node's `actor` is `null` at a terminal node.
 *
 * @module
 */
import type { LoopDef } from "../../loops/mod.ts";
import { plural } from "../../errors.ts";
import { visible } from "../../terminal.ts";
import { type CliContext, println } from "../context.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { readLoops } from "../_loops.ts";

/** Flags of `loops`. */
export interface ListFlags {
  format: "text" | "json";
}

/** Prints the loops. Throws `ProblemsError` (exit 1) when they do not read. */
export function listLoops(ctx: CliContext, flags: ListFlags): Promise<void> {
  return jsonOnFailure(
    ctx,
    { json: flags.format === "json", command: "loops", fields: { defaultLoop: null, loops: [] } },
    (ctx) => list(ctx, flags),
  );
}

/** A loop as JSON: its nodes a list, in declaration order. */
export function loopJson(loop: LoopDef) {
  return {
    name: loop.name,
    builtin: loop.builtin,
    start: loop.start,
    nodes: Object.values(loop.nodes).map((n) => ({
      id: n.id,
      phase: n.phase,
      actor: n.actor ?? null,
      next: { ...n.next },
      terminal: n.terminal,
      maxAttempts: n.maxAttempts,
      prompt: n.prompt,
    })),
  };
}

async function list(ctx: CliContext, flags: ListFlags): Promise<void> {
  const { loaded, loops } = await readLoops(ctx);
  const chosen = loaded.config.webhooks.ghWebhook.routing.loop;
  if (flags.format === "json") {
    printEnvelope(ctx, "loops", { ok: true, config: configRef(loaded) }, {
      defaultLoop: chosen,
      loops: [...loops.values()].map(loopJson),
    });
    return;
  }
  const from = loaded.path ?? "no config file found; built-ins only";
  const builtins = [...loops.values()].filter((l) => l.builtin).length;
  println(ctx, `${plural(loops.size, "loop")} (${builtins} built in) from ${from}:`);
  for (const loop of loops.values()) {
    println(ctx);
    const marks = [loop.builtin ? "built in" : "", loop.name === chosen ? "routing.loop" : ""]
      .filter(Boolean).join(", ");
    println(ctx, `${loop.name}${marks ? ` (${marks})` : ""}: starts at ${loop.start}`);
    const nodes = Object.values(loop.nodes);
    const width = Math.max(...nodes.map((n) => n.id.length));
    for (const n of nodes) {
      const who = n.terminal ? "terminal" : n.actor === "human" ? "a person" : "the agent";
      const edges = Object.entries(n.next).map(([o, to]) => `${o} → ${to}`).join(", ");
      const attempts = n.actor === "agent" ? `, at most ${n.maxAttempts} entries` : "";
      println(
        ctx,
        `  ${n.id.padEnd(width)}  phase ${n.phase}, ${who}${attempts}${edges ? `: ${edges}` : ""}`,
      );
      if (n.prompt) println(ctx, `  ${"".padEnd(width)}  ${visible(firstLine(n.prompt))}`);
    }
  }
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0];
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
