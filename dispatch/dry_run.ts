/**
 * The dispatcher as `poll start --dry-run` runs it: every decision made as the daemon would make
 * it — the lifecycle hooks asked, the prompts rendered after they had their say — and nothing
 * done: no harness spawned, nothing posted or reacted on GitHub, no registry, control record,
 * start marker or checkout written. What it would have done is kept in
 * {@linkcode DryRunDispatcher.records}, in order; sessions it would have spawned (and commands it
 * would have applied) are remembered in memory, so later events of the same run see them, and
 * so are the loop positions it would have written: each move is recorded (`move`, its `text`
 * "enter pdlc at requirements", "resolve review with approve → done", …).
 *
 * ```ts
 * const dry = new DryRunDispatcher({ config: () => routing, sessions: registry, … });
 * await router.route(event); // the router hands the event to `dry`
 * dry.records; // [{ action: "spawn", workItem: "github:o/r#1", prompt: "You have been started…" }]
 * ```
 *
 * @module
 */
import type { ControlCommand, ControlRecord } from "../state/control.ts";
import type { SessionRecord } from "../state/registry.ts";
import type { WorkItemRef } from "../state/work_item.ts";
import { SessionDispatcher } from "./dispatcher.ts";
import type {
  ControlActions,
  ControlOrigin,
  ControlResult,
  DispatchControlStore,
  DispatchGitHub,
  DispatchRunner,
  DispatchSessions,
  HostedSession,
  RegisterInput,
  SessionDispatcherOptions,
} from "./seams.ts";
import type { Dispatcher, DispatchOutcome, RoutedEvent } from "./types.ts";
import { FileStartMarks, MemoryStartMarks } from "./_arming.ts";
import { type LoopPositions, LoopStore, type Position } from "../loops/mod.ts";

/** One thing the dispatcher would have done. */
export interface DryRunRecord {
  workItem: string;
  deliveryId: string;
  action: "spawn" | "respawn" | "deliver" | "close" | "command" | "comment" | "move";
  /** `spawn`, `respawn`, `deliver`: the prompt the harness would be given. */
  prompt?: string;
  /** `command`: which, and what it would have done (`applied`, `noop`, `rejected`). */
  command?: ControlCommand;
  status?: string;
  /** `comment`: the comment's text; `move`: the transition in words. */
  text?: string;
}

/**
 * Positions read from `dir` (`<state.root>/loops/<slug>.json`) and never written: a file that
 * does not read is no position (a dry run renames nothing aside).
 */
export function readOnlyPositions(dir: string): LoopPositions {
  const store = new LoopStore({ dir });
  return {
    get: async (ref: string) => {
      try {
        const value = JSON.parse(await Deno.readTextFile(store.pathOf(ref)));
        const ok = value && value.workItem === ref && typeof value.node === "string" &&
          typeof value.loop === "string" && Array.isArray(value.history);
        return ok ? value as Position : undefined;
      } catch {
        return undefined;
      }
    },
    put: () => Promise.reject(new Error("a dry run writes no position")),
  };
}

/** A move in words, from the position before and after it. */
export function moveText(before: Position | undefined, after: Position): string {
  const last = after.history.at(-1);
  if (before?.status === "completed" && last?.kind === "close") {
    return `record the close of ${after.loop} (its walk already done at ${after.node})`;
  }
  if (!before || before.status === "completed" || last?.kind === "enter") {
    return `enter ${after.loop} at ${after.node}`;
  }
  const step = last?.kind === "escalate" ? after.history.at(-2) : last;
  const edge = `${step?.from ?? before.node} with ${step?.outcome ?? ""} → ${after.node}`;
  switch (last?.kind) {
    case "close":
      return after.node === before.node
        ? `complete ${after.loop} at ${after.node} (the item closed)`
        : `complete ${after.loop} at ${after.node} (the item closed at ${before.node})`;
    case "gate":
      return `resolve ${edge}`;
    case "escalate":
      return `advance ${edge}, and park the item there (escalated)`;
    case "resume":
      return `resume ${after.loop} at ${after.node}`;
    default:
      return `advance ${edge}${after.status === "completed" ? " (the loop completes)" : ""}`;
  }
}

/** Options of {@linkcode DryRunDispatcher}: the dispatcher's, minus everything that writes. */
export interface DryRunDispatcherOptions extends
  Omit<
    SessionDispatcherOptions,
    "sessions" | "control" | "workspaces" | "trust" | "github" | "startMarks"
  > {
  /** Read only (`live`, `lookup`): the registry as it is. */
  sessions: Pick<DispatchSessions, "live" | "lookup">;
}

/** Decides like {@linkcode SessionDispatcher}, does nothing, records what it would do. */
export class DryRunDispatcher implements Dispatcher {
  readonly records: DryRunRecord[] = [];
  readonly #inner: SessionDispatcher;
  /** Each work item's delivery in its turn (one at a time per item). */
  readonly #current = new Map<string, string>();
  /** Sessions as the run has left them (spawned, paused, closed). */
  readonly #sessions = new Map<string, SessionRecord>();
  /** Control records as the run has left them (`null`: cleared). */
  readonly #control = new Map<string, ControlRecord | null>();
  readonly #real: DryRunDispatcherOptions;
  /** Positions as the run has left them. */
  readonly #positions = new Map<string, Position>();

  constructor(opts: DryRunDispatcherOptions) {
    this.#real = opts;
    const disk = new FileStartMarks(opts.controlStore.dir);
    this.#inner = new SessionDispatcher({
      ...opts,
      sessions: this.#sessionsView(),
      control: this.#controlActions(),
      controlStore: this.#controlView(),
      runner: this.#runner(),
      github: this.#github(),
      startMarks: new MemoryStartMarks((ref) => disk.has(ref)),
      ...(opts.positions ? { positions: this.#positionsView(opts.positions) } : {}),
    });
  }

  #positionsView(real: LoopPositions): LoopPositions {
    const get = async (ref: string) => this.#positions.get(ref) ?? await real.get(ref);
    return {
      get,
      put: async (position: Position) => {
        const before = await get(position.workItem);
        this.#positions.set(position.workItem, position);
        // a write that moved nothing (the label noted as published, a held note told) is no move
        if (before && before.history.length === position.history.length) return;
        this.#record(position.workItem, { action: "move", text: moveText(before, position) });
      },
    };
  }

  async dispatch(event: RoutedEvent, opts?: { signal?: AbortSignal }): Promise<DispatchOutcome> {
    return await this.#inner.dispatch(event, opts);
  }

  #record(ref: string, r: Omit<DryRunRecord, "workItem" | "deliveryId">): void {
    this.records.push({ workItem: ref, deliveryId: this.#current.get(ref) ?? "", ...r });
  }

  async #live(ref: string): Promise<SessionRecord | undefined> {
    const mine = this.#sessions.get(ref);
    if (mine) return mine.status === "closed" ? undefined : mine;
    return await this.#real.sessions.live(ref);
  }

  #sessionsView(): DispatchSessions {
    return {
      lookup: async (ref: string, id: string) => {
        this.#current.set(ref, id); // the first question of every turn
        const { duplicate } = await this.#real.sessions.lookup(ref, id);
        return { duplicate, live: await this.#live(ref) };
      },
      live: (ref: string) => this.#live(ref),
      register: (input: RegisterInput) => {
        const i = input.item;
        const record: SessionRecord = {
          workItem: {
            ref: i.ref,
            provider: "github",
            owner: i.owner,
            repo: i.repo,
            number: i.number,
          },
          harness: input.harness,
          harnessSessionId: input.harnessSessionId,
          cwd: input.cwd,
          status: "active",
          createdAt: new Date().toISOString(),
          lastEventAt: null,
          tmuxTarget: input.tmuxTarget ?? "",
          recentDeliveries: [],
          url: input.url ?? "",
        };
        this.#sessions.set(i.ref, record);
        return Promise.resolve(record);
      },
      touch: (ref: string) => this.#live(ref),
      update: (ref: string) => this.#live(ref),
      close: async (ref: string) => {
        const live = await this.#live(ref);
        if (live) this.#sessions.set(ref, { ...live, status: "closed" });
        return live;
      },
    };
  }

  #controlView(): DispatchControlStore {
    const real = this.#real.controlStore;
    const get = async (ref: string) => {
      const mine = this.#control.get(ref);
      return mine === null ? undefined : mine ?? await real.get(ref);
    };
    return {
      dir: real.dir,
      get,
      startRequested: async (ref: string) => {
        const c = (await get(ref))?.command;
        return c === "start" || c === "resume";
      },
      clear: (ref: string) => {
        this.#control.set(ref, null);
        return Promise.resolve();
      },
    };
  }

  #controlActions(): ControlActions {
    return {
      apply: async (
        command: ControlCommand,
        item: WorkItemRef,
        origin: ControlOrigin,
        opts: { loop?: string } = {},
      ) => {
        const live = await this.#live(item.ref);
        const result = decide(command, live);
        if (result.status === "applied") {
          this.#control.set(item.ref, {
            ref: item.ref,
            command,
            source: origin.source,
            actor: origin.actor,
            requestedAt: new Date().toISOString(),
            note: origin.note,
            ...(command === "start" && opts.loop ? { loop: opts.loop } : {}),
          });
          if (live && result.session) this.#sessions.set(item.ref, result.session);
        }
        this.#record(item.ref, { action: "command", command, status: result.status });
        return result;
      },
    };
  }

  #runner(): DispatchRunner {
    const real = this.#real.runner;
    return {
      kind: real.kind,
      attachCommand: real.attachCommand?.bind(real),
      logPath: real.logPath?.bind(real),
      spawn: (s: HostedSession, prompt: string, o: { resume: boolean }) => {
        this.#record(s.ref, { action: o.resume ? "respawn" : "spawn", prompt });
        return Promise.resolve({
          harnessSessionId: s.harnessSessionId || "dry-run",
          tmuxTarget: s.tmuxTarget,
        });
      },
      deliver: (s: HostedSession, prompt: string) => {
        this.#record(s.ref, { action: "deliver", prompt });
        return Promise.resolve(true);
      },
      close: (s: HostedSession) => {
        this.#record(s.ref, { action: "close" });
        return Promise.resolve();
      },
    };
  }

  #github(): DispatchGitHub {
    return {
      createComment: (repo: string, number: number, body: string) => {
        const ref = [...this.#current.keys()].find((r) => r.endsWith(`${repo}#${number}`));
        this.#record(ref ?? `github:${repo}#${number}`, { action: "comment", text: body });
        return Promise.resolve({ html_url: "" });
      },
      addReaction: () => Promise.resolve(),
    };
  }
}

/** What a control command would do to `live` (as `SessionControl` decides). */
function decide(command: ControlCommand, live: SessionRecord | undefined): ControlResult {
  const to = (status: SessionRecord["status"]) => live && { ...live, status };
  switch (command) {
    case "start":
      return live?.status === "active"
        ? { status: "noop", session: live }
        : { status: "applied", session: to("active") };
    case "pause":
      return live
        ? { status: "applied", session: to("paused") }
        : { status: "rejected", reason: "no-session" };
    case "resume":
      return live?.status === "paused"
        ? { status: "applied", session: to("active") }
        : { status: "rejected", reason: "nothing-to-resume" };
    case "stop":
      return { status: "applied", session: to("closed") };
  }
}
