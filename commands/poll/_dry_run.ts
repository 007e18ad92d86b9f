/**
 * `poll start --dry-run`: prints the dry cycle (`dryCycle`, `poll/dry_run.ts`) — one cycle that
 * reads GitHub and writes nothing — as a line and a table of would-be hand-overs (work item, kind,
 * actor and why), then what the dispatcher would do with each, with the prompt each spawn and
 * delivery would send after the lifecycle hooks had their say; or, with `--format json`, as the
 * `poll start` envelope. The safe first thing to run.
 *
 * @module
 */
import type { LoadedConfig } from "../../config/mod.ts";
import { dryCycle } from "../../poll/mod.ts";
import { type CliContext, println } from "../context.ts";
import { configRef, printEnvelope } from "../_envelope.ts";
import { table } from "../_output.ts";

/** Options of {@linkcode dryRun}. */
export interface DryRunOptions {
  ctx: CliContext;
  loaded: LoadedConfig;
  token: string;
  stateFile: string;
  format: "text" | "json";
}

/** Runs the dry cycle and prints it. */
export async function dryRun(o: DryRunOptions): Promise<void> {
  const { ctx, loaded } = o;
  const { handovers: rows, actions, report } = await dryCycle({
    loaded,
    token: o.token,
    stateFile: o.stateFile,
    env: ctx.env,
    cwd: ctx.cwd,
    warn: (m) => ctx.warn(`poll: warning: ${m}\n`),
  });
  if (o.format === "json") {
    printEnvelope(ctx, "poll start", { ok: true, config: configRef(loaded) }, {
      dryRun: true,
      handovers: rows,
      actions,
      cycle: {
        itemsSeen: report.itemsSeen,
        errors: report.errors,
        requests: report.requests,
        notModified: report.notModified,
      },
    });
    return;
  }
  println(
    ctx,
    `poll --dry-run: ${report.itemsSeen} labelled item(s) seen, ${rows.length} hand-over(s), ` +
      `${report.errors} error(s), ${report.requests} GitHub request(s); nothing was written`,
  );
  if (rows.length === 0) return;
  ctx.write(
    table(
      ["WORK ITEM", "KIND", "ACTOR", "WHY"],
      rows.map((r) => [r.workItem, r.kind, r.actor ?? "-", r.why]),
    ),
  );
  for (const a of actions) {
    const what = a.action === "command"
      ? `${a.command} (${a.status})`
      : a.action === "comment"
      ? "a comment on the item"
      : a.action;
    println(ctx, "");
    println(ctx, `would ${what}: ${a.workItem}`);
    const body = a.prompt ?? a.text;
    if (body) println(ctx, body.split("\n").map((l) => `  | ${l}`).join("\n"));
  }
}
