/**
 * The comments the dispatcher posts on a work item, each marked as the-loop's own by the GitHub
 * client: the spawn announcement (built from registry fields only — never from an event's
 * payload), a hook's refusal (`⚠️ … <hook>: <reason>`) and the closure comment. Every one is
 * best-effort: a failure is an event (`dispatch.comment_failed`, `session.announce_failed`),
 * never the dispatch's outcome.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { SessionRecord } from "../../state/registry.ts";
import { parseWorkItem, repoOf, slugOf } from "../../state/work_item.ts";
import type { DispatchRunner } from "../seams.ts";
import type { Handled, Turn } from "./turn.ts";

/** Posts `body` on the turn's work item; its URL, or `undefined` when it failed. */
export async function postComment(
  turn: Turn,
  purpose: "refusal" | "closure" | "loop",
  body: string,
): Promise<string | undefined> {
  const item = turn.event.workItem;
  try {
    const c = await turn.deps.github.createComment(repoOf(item), item.number, body);
    return c.html_url ?? "";
  } catch (err) {
    turn.emit("dispatch.comment_failed", { purpose, error: messageOf(err) }, "warning");
    return undefined;
  }
}

/** What a refusal stopped, as its comment says it. */
export type Refused = "start" | "launch" | "relaunch" | "deliver";

const STOPPED: Record<Refused, string> = {
  start: "the-loop did not start",
  launch: "the-loop did not launch a session",
  relaunch: "the-loop did not relaunch the session",
  deliver: "the-loop did not deliver this to the session",
};

/** `⚠️ the-loop did not start: <hook>: <reason>` (and what it was about, when known). */
function refusalText(o: { what: Refused; hook: string; reason: string; about?: string }) {
  const reason = o.reason.trim() || "refused";
  const about = o.about ? `\n\n(about ${o.about})` : "";
  return `⚠️ ${STOPPED[o.what]}: ${o.hook}: ${reason}${about}`;
}

/**
 * The announcement of a spawned session, from its registry record and the runner alone: the
 * work item, the harness and its conversation id, and how to watch it.
 */
export function announcementText(record: SessionRecord, runner: DispatchRunner): string {
  const ref = record.workItem.ref;
  const item = parseWorkItem(ref);
  const slug = item ? slugOf(item) : "";
  const lines = [
    `🖥️ **the-loop** started a ${record.harness} session for ${ref}` +
    (record.harnessSessionId ? ` (session \`${record.harnessSessionId}\`).` : "."),
  ];
  if (runner.kind === "tmux") {
    const attach = runner.attachCommand?.(slug) ?? `tmux attach -t ${record.tmuxTarget}`;
    lines.push(
      `The session exists in tmux as \`${record.tmuxTarget}\`: attach with \`${attach}\` ` +
        "to watch it work (detach with Ctrl-b d).",
    );
  } else {
    const log = runner.logPath?.(slug);
    lines.push(
      `It is running headless (one turn per event)${log ? `; log at \`${log}\`` : ""}.`,
    );
  }
  lines.push("Comments on this thread reach it; a stop keyword ends it.");
  return lines.join("\n\n");
}

/** Posts the announcement; `session.announced` or `session.announce_failed`. */
export async function announce(turn: Turn, record: SessionRecord): Promise<void> {
  const item = turn.event.workItem;
  try {
    const c = await turn.deps.github.createComment(
      repoOf(item),
      item.number,
      announcementText(record, turn.deps.runner),
    );
    turn.emit("session.announced", {
      tmux_target: record.tmuxTarget,
      comment_url: c.html_url ?? null,
    });
  } catch (err) {
    turn.emit("session.announce_failed", { error: messageOf(err) }, "warning");
  }
}

/** The closure comment: the session ended because its work item closed. */
export function closureText(record: SessionRecord, o: { why: string; retained: boolean }): string {
  const kept = o.retained && record.tmuxTarget
    ? ` Its tmux session \`${record.tmuxTarget}\` is kept, read-only, for the record.`
    : "";
  return `🏁 **the-loop** closed the ${record.harness} session for ${record.workItem.ref}: ` +
    `${o.why}.${kept}`;
}

/**
 * A proceed point refused (`refused`: its verdict's hook and reason): `dispatch.hook_refused`,
 * ONE marked comment on the work item, and the event settled (`settle`, default `hook-refused`),
 * never retried.
 */
export async function explainRefusal(
  turn: Turn,
  refused: { hook: string; reason: string },
  o: { point: string; what: Refused; settle?: "hook-refused" | "input-refused" },
): Promise<Handled> {
  const { hook, reason } = refused;
  turn.emit("dispatch.hook_refused", { point: o.point, hook, reason });
  const about = o.what === "deliver" ? turn.event.subject?.url : undefined;
  await postComment(turn, "refusal", refusalText({ what: o.what, hook, reason, about }));
  return turn.settled(o.settle ?? "hook-refused", false);
}
