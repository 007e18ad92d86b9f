/**
 * The execution-control actions, one implementation for a keyword in a comment
 * and for a CLI verb. Each check-and-change runs under the work item's registry lock, and the
 * control record (`<registryDir>/control/<slug>.json`) is written under that lock too, so the
 * session and its last command never disagree:
 *
 * | command  | live active      | live paused              | no live session                        |
 * | -------- | ---------------- | ------------------------ | -------------------------------------- |
 * | `start`  | `noop`, no record| → active, recorded       | recorded (the next event spawns)       |
 * | `pause`  | → paused, recorded | recorded again         | recorded, `rejected` `no-session`      |
 * | `resume` | `rejected` `nothing-to-resume`, no record | → active, recorded | `rejected` `nothing-to-resume`, no record |
 * | `stop`   | closed, recorded, harness ended | closed, recorded, harness ended | recorded (disarms)  |
 *
 * A `resume` of an escalated item (parked by its loop) resumes its loop position too: the node's
 * attempts start over (`loop.resumed`).
 *
 * `stop` closes the record first and ends the harness after the lock is let go (ending a tmux
 * harness may take its kill grace); a failure to end it is reported (`session.harness_end_failed`
 * and `warn`) and never undoes the close.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { EventSink } from "../../events/mod.ts";
import type { ControlCommand, ControlRecord, ControlStore } from "../../state/control.ts";
import type { SessionRecord } from "../../state/registry.ts";
import type { WorkItemRef } from "../../state/work_item.ts";
import type { ControlActions, ControlOrigin, ControlResult } from "../seams.ts";
import { type LoopPositions, type LoopSet, resume } from "../../loops/mod.ts";
import type { Mutation, SessionStore } from "./store.ts";

/** Options of {@linkcode SessionControl}. */
export interface SessionControlOptions {
  sessions: SessionStore;
  control: ControlStore;
  /** Ends a stopped session's harness (the runner's `close`). */
  endHarness: (session: SessionRecord) => Promise<void>;
  events: EventSink;
  /** Told when ending a harness failed; default: nowhere (the event says it). */
  warn?: (message: string) => void;
  /** The clock; default `new Date()`. */
  now?: () => Date;
  /**
   * Where items stand in their loops: a resume of an escalated item's session resumes its
   * position too (the node's attempts start over, `loop.resumed`). Absent: loops untouched.
   */
  positions?: LoopPositions;
  /** The loops in force (what a resumed position's loop is looked up in). */
  loops?: () => LoopSet;
}

/** What one locked step decided. */
type Step = Mutation<ControlResult> & { closed?: SessionRecord };

/** The control actions over a session store and its control records. */
export class SessionControl implements ControlActions {
  readonly #o: SessionControlOptions;
  readonly #now: () => Date;

  constructor(opts: SessionControlOptions) {
    this.#o = opts;
    this.#now = opts.now ?? (() => new Date());
  }

  async apply(
    command: ControlCommand,
    item: WorkItemRef,
    origin: ControlOrigin,
    opts: { loop?: string } = {},
  ): Promise<ControlResult> {
    const record: ControlRecord = {
      ref: item.ref,
      command,
      source: origin.source,
      actor: origin.actor,
      requestedAt: this.#now().toISOString(),
      note: origin.note,
      ...(command === "start" && opts.loop ? { loop: opts.loop } : {}),
    };
    let closed: SessionRecord | undefined;
    const result = await this.#o.sessions.mutate(item.ref, async (current) => {
      const live = current && current.status !== "closed" ? current : undefined;
      const step = decide(record, live);
      if (step.result.recorded) {
        if (step.write) await this.#o.sessions.registry.write(step.write);
        await this.#o.control.record(step.result.recorded);
      }
      closed = step.closed;
      return { result: step.result }; // written above, before the control record
    });
    this.#report(command, item, origin, result);
    if (command === "resume" && result.status === "applied") await this.#resumeLoop(item, origin);
    if (closed) {
      this.#o.sessions.noteClosed(closed, "stop");
      await this.#end(closed);
    }
    return result;
  }

  #report(
    command: ControlCommand,
    item: WorkItemRef,
    origin: ControlOrigin,
    result: ControlResult,
  ): void {
    // `origin`, not `source`: every record's `source` is the writing process (cli, poll, …)
    const who = { work_item: item.ref, command, origin: origin.source, actor: origin.actor };
    if (result.status === "applied") {
      this.#o.events.emit("control.applied", {
        ...who,
        session_status: result.session?.status ?? "",
      });
    } else if (result.status === "noop") {
      this.#o.events.emit("control.noop", who);
    } else {
      this.#o.events.emit("control.rejected", {
        ...who,
        reason: result.reason,
        recorded: result.recorded !== undefined,
      });
    }
  }

  /** An escalated position resumed with its session: the node's attempts start over. */
  async #resumeLoop(item: WorkItemRef, origin: ControlOrigin): Promise<void> {
    const { positions, loops } = this.#o;
    if (!positions || !loops) return;
    try {
      const pos = await positions.get(item.ref);
      if (pos?.status !== "escalated") return;
      const loop = loops().get(pos.loop);
      if (!loop) return;
      const move = resume(loop, pos, { by: origin.actor, now: this.#now() });
      await positions.put(move.position);
      this.#o.events.emit("loop.resumed", {
        work_item: item.ref,
        loop: loop.name,
        node: move.position.node,
        actor: origin.actor,
        origin: origin.source,
      });
    } catch (error) {
      // the session is resumed all the same; the position stays parked (say so)
      this.#o.events.emit("loop.fault", {
        work_item: item.ref,
        step: "resume",
        error: messageOf(error),
      }, { level: "warning" });
      this.#o.warn?.(
        `the session of ${item.ref} is resumed, but its loop position could not be: ` +
          `${messageOf(error)}`,
      );
    }
  }

  async #end(session: SessionRecord): Promise<void> {
    try {
      await this.#o.endHarness(session);
    } catch (error) {
      const message = messageOf(error);
      this.#o.events.emit("session.harness_end_failed", {
        work_item: session.workItem.ref,
        tmux_target: session.tmuxTarget,
        error: message,
      });
      this.#o.warn?.(
        `the session of ${session.workItem.ref} is closed, but ending its harness failed: ` +
          `${message}; end it by hand (tmux kill-session -t ${session.tmuxTarget || "…"})`,
      );
    }
  }
}

/** What `record`'s command does to `live` (the record to write, the verdict). */
function decide(record: ControlRecord, live: SessionRecord | undefined): Step {
  const next = (status: SessionRecord["status"]) => live && { ...live, status };
  const applied = (write: SessionRecord | undefined): Step => ({
    write,
    result: { status: "applied", recorded: record, session: write },
  });
  switch (record.command) {
    case "start":
      if (live?.status === "active") return { result: { status: "noop", session: live } };
      return applied(next("active"));
    case "pause":
      if (!live) return { result: { status: "rejected", reason: "no-session", recorded: record } };
      return applied(next("paused"));
    case "resume":
      if (live?.status !== "paused") {
        return { result: { status: "rejected", reason: "nothing-to-resume", session: live } };
      }
      return applied(next("active"));
    case "stop": {
      const step = applied(next("closed"));
      return { ...step, closed: step.write };
    }
  }
}
