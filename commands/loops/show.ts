/**
 * `the-loop loops show REF [--format text|json]`: where a work item stands in its loop, read
 * from its position file (`<state.root>/loops/<slug>.json`, the daemon's `LoopStore`; no daemon
 * needed, nothing moved or written): the loop, node, phase, status, since when it waits at a
 * gate (and for which keywords), the attempts per node and the history of transitions. The
 * loops are read strictly too (exit 1 with every problem when they do not read): the current
 * node is described from its loop.
 *
 * An item that never entered a loop exits 1 (`REF has not entered a loop yet`); so does a
 * position file that does not read (the daemon keeps it aside at its next read). `--format
 * json` prints the envelope (`commands/_envelope.ts`, `schema/cli/loops-show.json`) in every
 * outcome, `position` and `node` null when there is no position.
 *
 * @module
 */
import type { Command } from "commander";
import {
  DEFAULT_GATE_KEYWORDS,
  gateKeyword,
  type LoopNode,
  LoopStore,
  type Position,
  positionsDir,
  readPosition,
} from "../../loops/mod.ts";
import { UsageError } from "../../errors.ts";
import { parseWorkItem } from "../../state/work_item.ts";
import { visible } from "../../terminal.ts";
import { type CliContext, println } from "../context.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { formatOption } from "../_output.ts";
import { readLoops } from "../_loops.ts";
import { loopJson } from "./list.ts";

interface ShowFlags {
  format: "text" | "json";
}

const COMMAND = "loops show";

/** Adds `show` to the `loops` group. */
export function register(group: Command, ctx: CliContext): void {
  const cmd = group.command("show")
    .description("say where a work item stands in its loop (node, phase, waits, attempts, history)")
    .argument("<ref>", "the work item: github:OWNER/REPO#N");
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((text: string, flags: ShowFlags) => {
    const ref = parseWorkItem(text)?.ref;
    if (!ref) {
      throw new UsageError(
        `"${text}" is not a work item ref: expected github:OWNER/REPO#N or ` +
          "github:HOST/OWNER/REPO#N (GitHub Enterprise)",
      );
    }
    return jsonOnFailure(
      ctx,
      {
        json: flags.format === "json",
        command: COMMAND,
        fields: { ref, position: null, node: null },
      },
      (ctx) => show(ctx, ref, flags),
    );
  });
}

async function show(ctx: CliContext, ref: string, flags: ShowFlags): Promise<void> {
  const { loaded, loops } = await readLoops(ctx);
  const path = new LoopStore({ dir: positionsDir(loaded.config.state.root) }).pathOf(ref);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new Error(
        `${ref} has not entered a loop yet (no ${path}); an item enters its loop when its ` +
          "session spawns",
      );
    }
    throw err;
  }
  const read = readPosition(text, ref);
  if ("error" in read) {
    throw new Error(
      `the position file ${path} of ${ref} does not read: ${read.error}; the daemon keeps it ` +
        "aside at its next read",
    );
  }
  const pos = read.position;
  const node = loops.get(pos.loop)?.nodes[pos.node];
  if (flags.format === "json") {
    const described = node
      ? loopJson({ ...loops.get(pos.loop)!, nodes: { [node.id]: node } }).nodes[0]
      : null;
    printEnvelope(ctx, COMMAND, { ok: true, config: configRef(loaded) }, {
      ref,
      position: pos,
      node: described,
    });
    return;
  }
  const keywords = loaded.config.webhooks.ghWebhook.routing.control.gateKeywords ??
    DEFAULT_GATE_KEYWORDS;
  for (const line of describe(pos, node, keywords)) println(ctx, visible(line));
}

/** The text: one line a fact, then the history. */
function describe(
  pos: Position,
  node: LoopNode | undefined,
  keywords: Record<string, string>,
): string[] {
  const who = !node
    ? `not in loop "${pos.loop}" as the config reads now`
    : node.terminal
    ? "terminal"
    : node.actor === "human"
    ? "a person's"
    : "the agent's";
  const rows: [string, string][] = [
    ["loop", pos.loop],
    ["node", `${pos.node} (${who})`],
    ["phase", `${pos.phase} (label loop:${pos.phase})`],
    ["status", pos.status],
  ];
  if (pos.waitingSince) {
    const words = node?.actor === "human"
      ? `: comment ${
        Object.keys(node.next).map((o) => `\`${gateKeyword(o, keywords)}\``).join(" or ")
      }`
      : "";
    rows.push(["waiting", `since ${pos.waitingSince}${words}`]);
  } else if (node?.actor === "agent" && pos.status === "active") {
    rows.push([
      "waiting",
      `for the agent: \`the-loop advance --outcome ${Object.keys(node.next).join("|")}\``,
    ]);
  }
  rows.push([
    "attempts",
    Object.entries(pos.attempts).map(([id, n]) => `${id} ${n}`).join(", ") || "none",
  ]);
  rows.push(["updated", pos.updatedAt]);
  const lines = [`${pos.workItem}`, ...rows.map(([k, v]) => `  ${k.padEnd(9)} ${v}`)];
  lines.push("  history:");
  for (const t of pos.history) {
    const edge = t.from ? `${t.from} → ${t.to}` : `→ ${t.to}`;
    const outcome = t.outcome ? ` (${t.outcome})` : "";
    lines.push(`    ${t.at}  ${t.kind.padEnd(8)} ${edge}${outcome} by ${t.by}`);
  }
  return lines;
}
