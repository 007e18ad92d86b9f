/**
 * The lifecycle call sites of the dispatcher: each builds its point's context from what the turn
 * knows, asks the hooks, and hands back the decisions — nothing else. The engine never throws;
 * should an injected one (or building a context) fail, the site proceeds as if no hook were
 * declared and says so (`dispatch.hook_error`): a hook can never crash the daemon.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import {
  type ContextInit,
  type ContextOf,
  makeContext,
  type PointName,
  type WorkItem,
  workItemFromRef,
  type WorkItemKind,
} from "../../lifecycle/sdk/mod.ts";
import type { PhaseChange } from "../../loops/mod.ts";
import type { HarnessName } from "../seams.ts";
import { harnessSettings } from "../harness/mod.ts";
import type { RoutedEvent } from "../types.ts";
import type { Turn } from "./turn.ts";
import { Suspended } from "./suspend.ts";

/** A proceed point's answer: whether to go on, and who refused and why. */
export interface Verdict {
  proceed: boolean;
  reason: string;
  /** The refusing hook's name (`a lifecycle hook` when the engine cannot say). */
  hook: string;
}

/** What the event says its work item is: an issue, a pull request, or `""` (unknown). */
function kindOf(event: RoutedEvent): WorkItemKind {
  if (event.linkedFrom) return "issue"; // reached through a PR: a linked issue
  const ITEM_KIND = { issue: "issue", pull_request: "pull-request" } as const;
  return event.item ? ITEM_KIND[event.item.kind] : "";
}

/** The work item of the turn, as the hooks see it. */
export function workItemOf(event: RoutedEvent): WorkItem {
  return workItemFromRef(event.workItem.ref, { kind: kindOf(event) });
}

/** The conversation's endpoint: the PR the event came through, else the work item. */
function endpointOf(event: RoutedEvent): WorkItem {
  if (!event.linkedFrom) return workItemOf(event);
  try {
    return workItemFromRef(event.linkedFrom, { kind: "pull-request" });
  } catch {
    return workItemOf(event);
  }
}

/**
 * Runs `point` over a context built from `facts`; the context as the hooks left it. A replayed
 * turn (its item was suspended, then resumed) answers the points it had asked before the park
 * from what they answered then, and its parked point goes on from the hook that failed. A chain
 * that parks throws {@linkcode Suspended}: the turn stops here and is parked.
 */
async function ask<P extends PointName>(
  turn: Turn,
  point: P,
  facts: ContextInit<P>,
): Promise<ContextOf<P> | undefined> {
  const earlier = turn.replayedAsk(point);
  if (earlier) {
    turn.asked.push({ point, context: earlier });
    return structuredClone(earlier) as unknown as ContextOf<P>;
  }
  const resume = turn.resumeAt(point);
  let ctx: ContextOf<P>;
  try {
    ctx = resume ? contextOf(point, resume.context, facts) : makeContext(point, facts);
    ctx = await turn.deps.hooks.run(
      point,
      ctx,
      resume ? { resume: { hook: resume.hook, rerun: resume.rerun } } : undefined,
    );
  } catch (err) {
    turn.emit("dispatch.hook_error", { point, error: messageOf(err) }, "warning");
    return undefined;
  }
  let parked;
  try {
    parked = turn.deps.hooks.suspensionOf?.(ctx);
  } catch { /* read as none */ }
  // kept as it is (the call sites only read it): copied only if the turn parks
  const context = ctx as unknown as Record<string, unknown>;
  if (parked) throw new Suspended(parked, JSON.parse(JSON.stringify(context)));
  turn.asked.push({ point, context });
  return ctx;
}

/** A parked point's stored context, as a context of `point` (else built afresh from `facts`). */
function contextOf<P extends PointName>(
  point: P,
  stored: Record<string, unknown>,
  facts: ContextInit<P>,
): ContextOf<P> {
  try {
    return makeContext(point, stored as ContextInit<P>);
  } catch {
    return makeContext(point, facts);
  }
}

function verdictOf(turn: Turn, ctx: { proceed: boolean; reason: string } | undefined): Verdict {
  if (!ctx || ctx.proceed !== false) return { proceed: true, reason: "", hook: "" };
  let hook: string | undefined;
  try {
    hook = turn.deps.hooks.refuserOf?.(ctx);
  } catch { /* the name is a nicety */ }
  return { proceed: false, reason: ctx.reason ?? "", hook: hook || "a lifecycle hook" };
}

/** `work_item_start`: once per arming, before the workspace is prepared. */
export async function askStart(
  turn: Turn,
  o: { command: string; actor: string; harness: HarnessName; loop?: string },
): Promise<Verdict> {
  const ctx = await ask(turn, "work_item_start", {
    work_item: workItemOf(turn.event),
    loop: o.loop ?? "",
    command: o.command,
    actor: o.actor,
    harness: o.harness,
    instance: "",
  });
  return verdictOf(turn, ctx);
}

/** What a launch is: the facts `session_spawn` and `session_spawned` share. */
export interface Launch {
  harness: HarnessName;
  cwd: string;
  respawn: boolean;
}

/** The flags a launch of `h` gets: the adapter's own (approval, model, trust), then `harnessArgs`. */
export function launchArgsOf(turn: Turn, h: HarnessName): string[] {
  const extraArgs = [...(turn.config.harnessArgs[h] ?? [])];
  const mode = turn.deps.runner.kind === "tmux" ? "interactive" : "headless";
  let own: string[] = [];
  try {
    own = turn.deps.adapterFor(h).settingsArgs({
      extraArgs,
      settings: harnessSettings(turn.config, h),
      mode,
    });
  } catch {
    // no adapter: the spawn fails on it, saying so
  }
  return [...own, ...extraArgs];
}

function launchFacts(turn: Turn, l: Launch) {
  return {
    work_item: workItemOf(turn.event),
    endpoint: endpointOf(turn.event),
    harness: l.harness,
    cwd: l.cwd,
    model: turn.config.harnessModels?.[l.harness]?.model ?? "",
    effort: turn.config.harnessModels?.[l.harness]?.effort ?? "",
    harness_args: launchArgsOf(turn, l.harness),
    respawn: l.respawn,
  };
}

/** `session_spawn`: before every harness launch; `prompt` is what it boots on. */
export async function askSpawn(
  turn: Turn,
  l: Launch & { prompt: string; loop?: string },
): Promise<Verdict & { prompt: string }> {
  const ctx = await ask(turn, "session_spawn", {
    ...launchFacts(turn, l),
    loop: l.loop ?? "",
    prompt: l.prompt,
  });
  const prompt = typeof ctx?.prompt === "string" && ctx.prompt !== "" ? ctx.prompt : l.prompt;
  return { ...verdictOf(turn, ctx), prompt };
}

/** `session_spawned`: after registration, before the announcement. */
export async function askSpawned(
  turn: Turn,
  l: Launch & { harnessSessionId: string; tmuxTarget: string },
): Promise<{ announce: boolean }> {
  const ctx = await ask(turn, "session_spawned", {
    ...launchFacts(turn, l),
    harness_session_id: l.harnessSessionId,
    tmux_target: l.tmuxTarget,
  });
  return { announce: ctx?.announce !== false };
}

/**
 * `input_received`: a comment about to be delivered, a command about to be applied, or an answer
 * to the agent's question (from a comment, or `the-loop reply`: source `verb`).
 */
export async function askInput(
  turn: Turn,
  o: {
    kind: "comment" | "command" | "answer";
    command: string;
    text: string;
    source?: "comment" | "verb";
    actor?: string;
    loop?: string;
  },
): Promise<Verdict & { text: string }> {
  const source = o.source ?? "comment";
  const ctx = await ask(turn, "input_received", {
    work_item: workItemOf(turn.event),
    kind: o.kind,
    actor: o.actor ?? turn.event.actor ?? "",
    source,
    command: o.command,
    event: source === "verb" ? "" : turn.event.ghEvent,
    endpoint: endpointOf(turn.event),
    loop: o.loop ?? "",
    text: o.text,
  });
  const text = typeof ctx?.text === "string" ? ctx.text : o.text;
  return { ...verdictOf(turn, ctx), text };
}

/** `phase_changed`: the loop entered, the phase changed, or a terminal node reached. */
export async function askPhaseChanged(
  turn: Turn,
  change: PhaseChange,
): Promise<{ notify: boolean }> {
  const ctx = await ask(turn, "phase_changed", {
    work_item: workItemOf(turn.event),
    loop: change.loop,
    from_node: change.fromNode,
    to_node: change.toNode,
    from_phase: change.fromPhase,
    to_phase: change.toPhase,
    outcome: change.outcome,
    actor: change.actor,
    terminal: change.terminal,
  });
  return { notify: ctx?.notify !== false };
}

/**
 * `waiting_for_input`: a human node entered (kind `gate`: the decisions are inert), or the
 * agent's question about to be posted (kind `question`: `question` and `summary` as rewritten).
 */
export async function askWaiting(
  turn: Turn,
  o: {
    kind: "question" | "gate";
    node: string;
    actor: string;
    loop: string;
    question: string;
    summary: string;
  },
): Promise<{ question: string; summary: string }> {
  const ctx = await ask(turn, "waiting_for_input", {
    work_item: workItemOf(turn.event),
    kind: o.kind,
    node: o.node,
    actor: o.actor,
    loop: o.loop,
    question: o.question,
    summary: o.summary,
  });
  if (o.kind === "gate") return { question: o.question, summary: o.summary };
  const question = typeof ctx?.question === "string" && ctx.question.trim() !== ""
    ? ctx.question
    : o.question;
  const summary = typeof ctx?.summary === "string" ? ctx.summary : o.summary;
  return { question, summary };
}

/** `work_item_complete`: at closure, before the closure is announced. */
export async function askComplete(
  turn: Turn,
  o: { state: string; kind: "issue" | "pull-request"; reason: string; loop?: string },
): Promise<{ announce: boolean }> {
  const ctx = await ask(turn, "work_item_complete", {
    work_item: workItemFromRef(turn.ref, { kind: o.kind }),
    state: o.state,
    kind: o.kind,
    reason: o.reason,
    source: turn.event.via === "poll" ? "poll" : "webhook",
    actor: turn.event.actor ?? "",
    loop: o.loop ?? "",
  });
  return { announce: ctx?.announce !== false };
}
