/**
 * `the-loop sessions start|pause|resume|stop <ref> [--no-comment] [--as LOGIN]` (and
 * `start --loop NAME`): execution control from the terminal, exactly what the comment keywords
 * do:
 *
 * 1. the `input_received` hooks are asked (kind `command`, source `verb`); a refusal exits 1
 *    with the hook's reason (`control.rejected` reason `input-refused`), nothing applied;
 * 2. the action is applied locally and recorded (`<registryDir>/control/<slug>.json`);
 * 3. unless `--no-comment`, the same keyword is posted on the work item, marked as the-loop's
 *    own, "Issued from the-loop CLI by `<actor>`" — only when something was recorded; a failing
 *    post warns and never undoes step 2.
 *
 * The exit code follows the local result: a pause with no session exits 1 (the pause is still
 * recorded), a resume with nothing paused exits 1 (nothing recorded), a start on a running
 * session is a no-op (exit 0). The actor is `--as`, else `$THE_LOOP_ACTOR`, else `$USER`.
 * `start --loop NAME` picks the loop the item walks (kept in the control record, as
 * `loop=NAME` after the start keyword does); a loop the config does not declare exits 2, listing
 * the known ones. A `resume` of an item its loop parked (escalated) resumes its position too:
 * the node's attempts start over, and the running daemon (if any) is told (`resumed` over its
 * control socket), so the agent is given its node's assignment again; with no daemon running,
 * the next spawn's prompt gives it. A resume is refused (exit 1, nothing changed) from inside a
 * the-loop session (`$THE_LOOP_SESSION` set: an agent may not lift its own park) and, for a
 * parked item, when the loops do not read.
 *
 * @module
 */
import type { Command } from "commander";
import { join } from "node:path";
import { messageOf, UsageError } from "../../errors.ts";
import type { ControlCommand } from "../../state/control.ts";
import type { LoopPositions, LoopSet } from "../../loops/mod.ts";
import type { SessionRecord } from "../../state/registry.ts";
import type { WorkItemRef } from "../../state/work_item.ts";
import type { EventSink } from "../../events/mod.ts";
import { type CliContext, println } from "../context.ts";
import { openSessions, refArg } from "./_open.ts";

/** The flags of a control verb. */
export interface VerbFlags {
  comment: boolean;
  as?: string;
  loop?: string;
}

const ABOUT: Record<ControlCommand, string> = {
  start:
    "arm a work item: the daemon spawns its session on the next event (or resumes a paused one)",
  pause: "pause a work item's session: events are dropped until it is resumed",
  resume: "resume a paused session",
  stop: "stop a work item: close its session, end its harness, and disarm it",
};

/** Adds `start`, `pause`, `resume` and `stop` to the `sessions` group. */
export function register(group: Command, ctx: CliContext): void {
  for (const command of ["start", "pause", "resume", "stop"] as const) {
    const verb = group.command(command)
      .description(ABOUT[command])
      .argument("<ref>", "the work item: github:OWNER/REPO#N or github:HOST/OWNER/REPO#N")
      .option("--no-comment", "do not post the keyword on the work item")
      .option("--as <login>", "who is asking (default: $THE_LOOP_ACTOR, else $USER)");
    if (command === "start") {
      verb.option("--loop <name>", "the loop the item walks (default: routing.loop)");
    }
    verb.action((ref: string, flags: VerbFlags) => runSessionVerb(command, ref, flags, ctx));
  }
}

function actorOf(flags: VerbFlags, ctx: CliContext): string {
  const actor = [flags.as, ctx.env("THE_LOOP_ACTOR"), ctx.env("USER")]
    .map((a) => a?.trim()).find((a) => a);
  if (!actor) throw new UsageError("who is asking? give --as LOGIN (or set $THE_LOOP_ACTOR)");
  return actor;
}

/**
 * Runs one control verb (the module doc): what `sessions start|pause|resume|stop` do, and the
 * status page's pause, resume and stop buttons (`commands/_ui.ts`).
 */
export async function runSessionVerb(
  command: ControlCommand,
  ref: string,
  flags: VerbFlags,
  ctx: CliContext,
): Promise<void> {
  const item = refArg(ref);
  // a resume is a person's: an agent parked by its loop must not lift the park itself
  if (command === "resume" && ctx.env("THE_LOOP_SESSION")?.trim()) {
    throw new Error(
      "sessions resume is a person's: it cannot be run from inside a the-loop session " +
        "($THE_LOOP_SESSION is set); run it from your own terminal",
    );
  }
  const actor = actorOf(flags, ctx);
  const { loaded, events, store, control } = await openSessions(ctx, "cli");
  // imported when a verb runs, not at every CLI start
  const { admitControl, harnessEnder, SessionControl } = await import("../../dispatch/mod.ts");
  const { loopsOf } = await import("../_loops.ts");
  const { LoopStore } = await import("../../loops/mod.ts");
  // the loops as the daemon reads them, only where they matter: a start's --loop (loops that do
  // not read stop it, located) and a resume (they then leave the position alone); a pause or a
  // stop never depends on them
  let loops: LoopSet | undefined;
  const readLoops = () => loopsOf(loaded);
  const positions = new LoopStore({ dir: join(loaded.config.state.root, "loops") });
  // a resume of a parked item resumes its position too (read once, before anything changes)
  const parked = command === "resume" &&
    (await positions.get(item.ref).catch(() => undefined))?.status === "escalated";
  if (flags.loop !== undefined) loops = readLoops();
  else if (command === "resume") {
    try {
      loops = readLoops();
    } catch (err) {
      // a parked item resumed without its position would be stuck: active, yet still parked
      if (parked) {
        throw new Error(
          `${item.ref} is parked by its loop, and the loops do not read, so its position ` +
            `cannot be resumed; nothing was changed: mend the config, then resume it — ` +
            messageOf(err),
        );
      }
      ctx.warn(`warning: the loops do not read: ${messageOf(err)}\n`);
    }
  }
  if (flags.loop !== undefined && loops && !loops.has(flags.loop)) {
    throw new UsageError(
      `unknown loop "${flags.loop}" (known: ${[...loops.keys()].join(", ")}); ` +
        "declare it under loops: or pick a known one",
    );
  }
  const engine = await import("../../lifecycle/mod.ts");
  const { announce } = await import("./_announce.ts");
  const origin = { source: "cli" as const, actor, note: `issued from the-loop CLI by ${actor}` };
  // the hooks are loaded only when some are declared (no `hooks.loaded` line for every verb)
  if (loaded.config.hooks.length > 0) {
    await engine.configureFromConfig(loaded, {
      strict: true,
      sink: events,
      env: ctx.env,
      warn: (m) => ctx.warn(m + "\n"),
    });
  }
  try {
    const admitted = await admitControl({ command, item, origin, events });
    if (!admitted.proceed) {
      throw new Error(
        `${command} of ${item.ref} refused by an input_received hook: ${admitted.reason}`,
      );
    }
    const actions = new SessionControl({
      sessions: store,
      control,
      endHarness: harnessEnder({
        tmux: loaded.config.webhooks.ghWebhook.routing.tmux,
        // the daemon's private tmux server, when it runs one (`dispatch/open.ts` reads the same)
        socket: ctx.env("THE_LOOP_TMUX_SOCKET") || undefined,
        warn: (m) => ctx.warn(`warning: ${m}\n`),
      }),
      events,
      warn: (m) => ctx.warn(`warning: ${m}\n`),
      // a resume of a parked item resumes its loop position (the daemon's files)
      ...(loops ? { positions, loops: () => loops } : {}),
    });
    const result = await actions.apply(
      command,
      item,
      origin,
      flags.loop !== undefined ? { loop: flags.loop } : undefined,
    );
    if (result.status !== "rejected") {
      println(ctx, done(command, item, result.session, result.status));
    }
    // a stop discards the item's suspension too (stop > resume), and its held deliveries
    if (command === "stop") await discardSuspension(ctx, loaded.config.state.root, item, events);
    if (parked && result.status === "applied") await retell(ctx, item, positions);
    if (result.recorded && flags.comment) {
      await announce({ ctx, loaded, item, command, actor, events });
    }
    // a budget's pause: its held events go in with one more window (the daemon grants it)
    const budget = command === "resume"
      ? await resumeBudgetPause(ctx, loaded.config.state.root, item, actor)
      : false;
    if (result.status === "rejected" && !budget) throw new Error(refusal(item, result.reason));
  } finally {
    await engine.reset();
  }
}

/**
 * A parked item resumed here: the running daemon is told, so the agent is given its node's
 * assignment again (its answer printed); no daemon, or one that cannot be reached, is said.
 */
async function retell(ctx: CliContext, item: WorkItemRef, positions: LoopPositions): Promise<void> {
  const pos = await positions.get(item.ref).catch(() => undefined);
  if (pos?.status !== "active") return; // the position could not be resumed (said above)
  const { tellDaemon } = await import("../_verb.ts");
  try {
    const answer = await tellDaemon(ctx, { v: 1, verb: "resumed", ref: item.ref });
    if (!answer) {
      ctx.warn(
        `note: no the-loop daemon is running for this state root: the agent of ${item.ref} is ` +
          "given its assignment when a daemon next spawns its session\n",
      );
    } else if (answer.exit === 0) println(ctx, answer.message);
    else ctx.warn(`warning: the daemon could not tell the agent: ${answer.message}\n`);
  } catch (error) {
    ctx.warn(`warning: the daemon could not be told of the resume: ${messageOf(error)}\n`);
  }
}

const who = (s: SessionRecord) => `${s.harness}:${s.harnessSessionId}`;

/** The line a verb prints when it did something (or, for start, found nothing to do). */
function done(
  command: ControlCommand,
  item: WorkItemRef,
  session: SessionRecord | undefined,
  status: "applied" | "noop",
): string {
  if (status === "noop") {
    return `${item.ref} already runs (${session ? who(session) : "?"}): nothing to do`;
  }
  switch (command) {
    case "start":
      return session
        ? `started ${item.ref}: its paused session (${who(session)}) is active again`
        : `started ${item.ref}: recorded; the daemon spawns its session on the next event`;
    case "pause":
      return `paused ${item.ref} (${session ? who(session) : "?"})`;
    case "resume":
      return `resumed ${item.ref} (${session ? who(session) : "?"})`;
    case "stop":
      return session
        ? `stopped ${item.ref}: session ${who(session)} closed`
        : `stopped ${item.ref}: no session was running; recorded, so it stays disarmed`;
  }
}

/** The error a rejected verb exits 1 with. */
function refusal(item: WorkItemRef, reason: string | undefined): string {
  if (reason === "no-session") return `no active session for ${item.ref} (the pause is recorded)`;
  if (reason === "nothing-to-resume") {
    return `nothing to resume for ${item.ref}: it has no paused session (nothing recorded)`;
  }
  return `${item.ref}: refused (${reason ?? "no reason given"})`;
}

/** `sessions stop`: the item's parked operation (if any) and its held deliveries are discarded. */
/** Resumes the item's suspension when a budget paused it; whether there was one. */
async function resumeBudgetPause(
  ctx: CliContext,
  root: string,
  item: WorkItemRef,
  by: string,
): Promise<boolean> {
  const { SuspensionStore, suspensionsDir } = await import("../../dispatch/mod.ts");
  const store = new SuspensionStore({ dir: suspensionsDir(root) });
  const record = await store.ofItem(item.ref);
  if (!record?.budget || record.resumed) return false;
  const { resumeRecord } = await import("../hooks/suspended.ts");
  println(ctx, await resumeRecord(ctx, store, record, by));
  return true;
}

async function discardSuspension(
  ctx: CliContext,
  root: string,
  item: WorkItemRef,
  events: EventSink,
): Promise<void> {
  const { discardedEvents, SuspensionStore, suspensionsDir } = await import(
    "../../dispatch/mod.ts"
  );
  const store = new SuspensionStore({ dir: suspensionsDir(root) });
  const record = await store.ofItem(item.ref);
  if (!record || !(await store.remove(record.id))) return;
  discardedEvents(events, record, "stop");
  const n = record.held.length;
  println(
    ctx,
    `discarded suspension ${record.id} (${
      record.budget
        ? `paused by budget ${record.budget.budget}`
        : `${record.point}, hook ${record.hook}`
    }) and its ${n} held ` +
      (n === 1 ? "delivery" : "deliveries"),
  );
}
