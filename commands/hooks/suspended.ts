/**
 * The parked operations (`onError: suspend`, `docs/lifecycle-hooks.md`), read from
 * `<state.root>/suspended/` (no daemon needed):
 *
 * - `the-loop hooks suspended [--format text|json]` lists them, oldest first: the id, the work
 *   item, the point and hook, why, since when, the mode, and how many deliveries are held
 *   (`schema/cli/hooks-suspended.json`);
 * - `the-loop hooks resume ID|REF [--as LOGIN]` resumes one: the running daemon is told (the
 *   `resumed` verb, naming the suspension), and marks it resumed and delivers the held events in
 *   order, in the item's queue; with no daemon running, the record is marked here (atomically)
 *   and the next daemon to start delivers them first. Idempotent: nothing suspended there (or
 *   resumed already) says so and exits 0.
 *
 * @module
 */
import type { Command } from "commander";
import { UsageError } from "../../errors.ts";
import { type SuspensionRecord, suspensionsDir, SuspensionStore } from "../../dispatch/mod.ts";
import { visible } from "../../terminal.ts";
import { type CliContext, println } from "../context.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { formatOption } from "../_output.ts";
import { loadCliConfig } from "../_config.ts";

interface ListFlags {
  format: "text" | "json";
}

/** The flags of `hooks resume`. */
export interface ResumeFlags {
  as?: string;
}

/** Registers `hooks suspended` and `hooks resume`. */
export function register(hooks: Command, ctx: CliContext): void {
  const list = hooks.command("suspended")
    .description("list the operations a failing onError: suspend hook parked");
  formatOption(list, ["text", "json"], "text");
  list.action((flags: ListFlags) =>
    jsonOnFailure(
      ctx,
      { json: flags.format === "json", command: "hooks suspended", fields: { suspended: [] } },
      (ctx) => listSuspended(ctx, flags),
    )
  );
  hooks.command("resume")
    .description("resume a parked operation: its held events are delivered in order")
    .argument("<id-or-ref>", "the suspension's id, or its work item: github:OWNER/REPO#N")
    .option("--as <login>", "who resumes it (default: $THE_LOOP_ACTOR, else $USER)")
    .action((target: string, flags: ResumeFlags) => resumeSuspended(ctx, target, flags));
}

async function storeOf(ctx: CliContext) {
  const loaded = await loadCliConfig(ctx);
  return { loaded, store: new SuspensionStore({ dir: suspensionsDir(loaded.config.state.root) }) };
}

/** One record as `hooks suspended --format json` shows it. */
export function suspensionJson(r: SuspensionRecord) {
  return {
    id: r.id,
    workItem: r.workItem,
    point: r.point,
    hook: r.hook,
    mode: r.mode,
    declared: r.declared,
    error: r.error,
    attempts: r.attempts,
    since: r.since,
    timeoutMinutes: r.timeoutMinutes ?? null,
    escalatedAt: r.escalatedAt ?? null,
    resumed: r.resumed ?? null,
    commentUrl: r.commentUrl ?? null,
    budget: r.budget ?? null,
    held: r.held.map((h) => ({
      deliveryId: h.deliveryId,
      kind: h.event.kind,
      ghEvent: h.event.ghEvent,
      heldAt: h.heldAt,
    })),
  };
}

async function listSuspended(ctx: CliContext, flags: ListFlags): Promise<void> {
  const { loaded, store } = await storeOf(ctx);
  const records = await store.list();
  if (flags.format === "json") {
    printEnvelope(ctx, "hooks suspended", { ok: true, config: configRef(loaded) }, {
      suspended: records.map(suspensionJson),
    });
    return;
  }
  if (records.length === 0) {
    println(ctx, "nothing is suspended");
    return;
  }
  for (const r of records) {
    const state = r.resumed
      ? `resumed by ${r.resumed.by} at ${r.resumed.at}, delivering`
      : r.escalatedAt
      ? `escalated at ${r.escalatedAt}`
      : "waiting";
    println(ctx, visible(`${r.id}  ${r.workItem}`));
    if (r.budget) {
      const b = r.budget;
      const who = b.who ? ` (${b.who})` : "";
      println(ctx, visible(`  paused by budget ${b.budget}${who} · since ${r.since} · ${state}`));
      println(ctx, visible(`  used: ${b.used} of ${b.limit}`));
    } else {
      println(
        ctx,
        visible(`  ${r.point} · hook ${r.hook} · ${r.mode} · since ${r.since} · ${state}`),
      );
      println(ctx, visible(`  failed: ${r.error}`));
    }
    println(ctx, `  held: ${r.held.length} ${r.held.length === 1 ? "delivery" : "deliveries"}`);
    if (!r.resumed) println(ctx, `  resume: the-loop hooks resume ${r.id}`);
  }
}

function actorOf(flags: ResumeFlags, ctx: CliContext): string {
  const actor = [flags.as, ctx.env("THE_LOOP_ACTOR"), ctx.env("USER")]
    .map((a) => a?.trim()).find((a) => a);
  if (!actor) throw new UsageError("who is resuming? give --as LOGIN (or set $THE_LOOP_ACTOR)");
  return actor;
}

/** `hooks resume ID|REF`: also the status page's resume button of a suspension. */
export async function resumeSuspended(
  ctx: CliContext,
  target: string,
  flags: ResumeFlags,
): Promise<void> {
  if (!target.trim()) throw new UsageError("hooks resume: give a suspension's id or a REF");
  // a resume is a person's: an agent must not lift the park of its own item
  if (ctx.env("THE_LOOP_SESSION")?.trim()) {
    throw new Error(
      "hooks resume is a person's: it cannot be run from inside a the-loop session " +
        "($THE_LOOP_SESSION is set); run it from your own terminal",
    );
  }
  const by = actorOf(flags, ctx);
  const { store } = await storeOf(ctx);
  const record = await store.find(target.trim());
  if (!record) {
    println(ctx, `nothing suspended for ${target}: nothing to resume`);
    return;
  }
  println(ctx, await resumeRecord(ctx, store, record, by));
}

/**
 * Resumes `record` from the CLI (also `sessions resume` of an item a budget paused): the running
 * daemon is told (it marks the record in the item's queue — a mark written here could overwrite
 * an event it was just holding — grants a budget's window and delivers the held events); with
 * none answering, the mark is written here and waits for its start. What happened, as a line.
 */
export async function resumeRecord(
  ctx: CliContext,
  store: SuspensionStore,
  record: SuspensionRecord,
  by: string,
): Promise<string> {
  const { tellDaemon } = await import("../_verb.ts");
  const answer = await tellDaemon(ctx, {
    v: 1,
    verb: "resumed",
    ref: record.workItem,
    suspension: record.id,
    by,
  }).catch(() => undefined);
  if ((!answer || answer.exit !== 0) && !record.resumed) {
    await store.put({ ...record, resumed: { at: new Date().toISOString(), by } });
  }
  const n = record.held.length;
  const held = `${n} held ${n === 1 ? "delivery" : "deliveries"}`;
  if (answer && answer.exit === 0) {
    return `resumed ${record.id} (${record.workItem}): the daemon delivers the ${held}`;
  }
  return `resumed ${record.id} (${record.workItem}): no daemon answered; the ${held} go ` +
    "when the daemon starts (the-loop poll start, or gh-webhook start)";
}
