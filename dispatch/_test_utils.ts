/**
 * Test helpers for the dispatcher: a real registry, control store and `SessionControl` in a
 * temporary folder, and small fakes behind the seams (runner, GitHub writes, hooks).
 *
 * @module
 */
import { join } from "node:path";
import { configFromText, type RoutingConfig } from "../config/mod.ts";
import { MemorySink } from "../events/mod.ts";
import type { ReactionContent, ReactionTarget } from "../github/mod.ts";
import type { ContextOf, PointName } from "../lifecycle/sdk/mod.ts";
import { ControlStore } from "../state/control.ts";
import { RegistryDir } from "../state/registry.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { adapterFor } from "./harness/mod.ts";
import { SessionDispatcher } from "./dispatcher.ts";
import { defaultTemplates, type PromptTemplates } from "./prompts.ts";
import type {
  DispatchGitHub,
  DispatchHooks,
  DispatchRunner,
  HarnessUsage,
  HostedSession,
  RunLimits,
  RunOptions,
  SpawnResult,
} from "./seams.ts";
import { hostedOf, SessionControl, SessionStore } from "./sessions/mod.ts";
import { SuspensionStore } from "./suspensions/mod.ts";
import type { DispatchOutcome, RoutedEvent } from "./types.ts";
import { until } from "../async/_test_utils.ts";
import { BUILTIN_LOOPS, type LoopPositions, type LoopSet, type Position } from "../loops/mod.ts";

/** A promise to settle by hand. */
export class Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (err: unknown) => void;
  constructor() {
    this.promise = new Promise<T>((res, rej) => [this.resolve, this.reject] = [res, rej]);
  }
}

/** One call a fake runner took. */
export interface RunnerCall {
  op: "spawn" | "deliver" | "close";
  ref: string;
  prompt?: string;
  resume?: boolean;
  harnessSessionId?: string;
  /** The caps the run was given (absent: none). */
  limits?: RunLimits;
}

/** A runner that records and, when told, holds its calls until released. */
export class FakeRunner implements DispatchRunner {
  readonly kind: "process" | "tmux";
  readonly calls: RunnerCall[] = [];
  /** Called inside spawn and deliver; may hold the call (a deferred) or throw. */
  gate: (call: RunnerCall, signal?: AbortSignal) => Promise<void> | void = () => {};
  /** false: the harness is gone, and a delivery finds it so (nothing recorded, `false`). */
  isAlive = true;
  /**
   * What each spawn and delivery reports it used (to `onUsage`, once the call's gate let it
   * through; a call whose gate throws reports nothing), as the process runner does; absent:
   * nothing reported (tmux, or a harness that reports nothing).
   */
  usage?: HarnessUsage | ((call: RunnerCall) => HarnessUsage | undefined);
  running = 0;
  maxRunning = 0;

  constructor(kind: "process" | "tmux" = "tmux") {
    this.kind = kind;
  }

  async #take(call: RunnerCall, opts: RunOptions): Promise<void> {
    if (opts.limits) call.limits = opts.limits;
    this.calls.push(call);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      await this.gate(call, opts.signal);
    } finally {
      this.running--;
    }
    const usage = typeof this.usage === "function" ? this.usage(call) : this.usage;
    if (usage) opts.onUsage?.(usage);
  }

  async spawn(
    s: HostedSession,
    prompt: string,
    opts: RunOptions & { resume: boolean },
  ): Promise<SpawnResult> {
    const call: RunnerCall = {
      op: "spawn" as const,
      ref: s.ref,
      prompt,
      resume: opts.resume,
      harnessSessionId: s.harnessSessionId,
    };
    await this.#take(call, opts);
    return {
      harnessSessionId: s.harnessSessionId || "chat-1",
      tmuxTarget: this.kind === "tmux" ? `loop-${s.slug}` : "",
    };
  }

  async deliver(
    s: HostedSession,
    prompt: string,
    opts: RunOptions,
  ): Promise<boolean> {
    if (!this.isAlive) return false;
    await this.#take({ op: "deliver", ref: s.ref, prompt }, opts);
    return true;
  }

  close(s: HostedSession): Promise<void> {
    this.calls.push({ op: "close", ref: s.ref });
    return Promise.resolve();
  }

  attachCommand(slug: string): string {
    return `tmux attach -t loop-${slug}`;
  }

  logPath(slug: string): string {
    return `/state/logs/${slug}.log`;
  }

  ops(): string[] {
    return this.calls.map((c) => `${c.op} ${c.ref}`);
  }
}

/** The GitHub writes, recorded; any kind can be made to fail. */
export class FakeGitHub {
  readonly comments: { repo: string; number: number; body: string }[] = [];
  readonly reactions: { target: ReactionTarget; content: ReactionContent }[] = [];
  /** Each item's labels (`octo/repo#1` → the labels it carries). */
  readonly labels = new Map<string, Set<string>>();
  /** Comments and label changes in order (`comment`, `+loop:work`, `-loop:work`), with the
   * positions' writes and hooks' calls when they share it (see {@linkcode setup}'s `trail`). */
  trail: string[] = [];
  failComments = false;
  failReactions = false;
  failLabels = false;

  createComment(repo: string, number: number, body: string): Promise<{ html_url: string }> {
    if (this.failComments) return Promise.reject(new Error("HTTP 502 from GitHub"));
    this.comments.push({ repo, number, body });
    this.trail.push("comment");
    return Promise.resolve({ html_url: `https://github.com/${repo}/issues/${number}#c1` });
  }

  addLabels(repo: string, number: number, labels: string[]): Promise<unknown> {
    if (this.failLabels) return Promise.reject(new Error("HTTP 502 from GitHub"));
    const set = this.labels.get(`${repo}#${number}`) ?? new Set();
    for (const l of labels) {
      set.add(l);
      this.trail.push(`+${l}`);
    }
    this.labels.set(`${repo}#${number}`, set);
    return Promise.resolve([...set]);
  }

  removeLabel(repo: string, number: number, label: string): Promise<boolean> {
    if (this.failLabels) return Promise.reject(new Error("HTTP 502 from GitHub"));
    this.trail.push(`-${label}`);
    return Promise.resolve(this.labels.get(`${repo}#${number}`)?.delete(label) ?? false);
  }

  /** The labels `#number` of `octo/repo` carries, sorted. */
  labelsOf(number: number, repo = "octo/repo"): string[] {
    return [...(this.labels.get(`${repo}#${number}`) ?? [])].sort();
  }

  addReaction(target: ReactionTarget, content: ReactionContent): Promise<void> {
    if (this.failReactions) return Promise.reject(new Error("HTTP 403 from GitHub"));
    this.reactions.push({ target, content });
    return Promise.resolve();
  }

  contents(): string[] {
    return this.reactions.map((r) => r.content);
  }
}

type Answer = (ctx: Record<string, unknown>) => void;

/** Hooks that answer what a test tells them to, and remember what they were asked. */
export class FakeHooks {
  readonly seen: { point: PointName; ctx: Record<string, unknown> }[] = [];
  readonly answers: Partial<Record<PointName, Answer>> = {};
  /** The name `refuserOf` gives a refusal. */
  refuser = "roster";
  /** Where each call is noted too (`hook:<point>`), beside other ports' steps. */
  trail: string[] = [];
  /** The points `handles` says no hook handles (default: every point is handled). */
  readonly unhandled = new Set<PointName>();

  handles(point: PointName): boolean {
    return !this.unhandled.has(point);
  }

  run<P extends PointName>(point: P, ctx: ContextOf<P>): Promise<ContextOf<P>> {
    const c = ctx as unknown as Record<string, unknown>;
    this.seen.push({ point, ctx: c });
    this.trail.push(`hook:${point}`);
    this.answers[point]?.(c);
    return Promise.resolve(ctx);
  }

  refuserOf(ctx: object): string | undefined {
    return (ctx as { proceed?: unknown }).proceed === false ? this.refuser : undefined;
  }

  points(): PointName[] {
    return this.seen.map((s) => s.point);
  }
}

/**
 * Positions in memory, each write noted on `trail` (`put <node>`); reads and writes can be made
 * to fail (a loop fault).
 */
export class MemoryPositions implements LoopPositions {
  readonly map = new Map<string, Position>();
  trail: string[] = [];
  failGet = false;
  failPut = false;
  puts = 0;
  gets = 0;

  get(ref: string): Promise<Position | undefined> {
    this.gets++;
    if (this.failGet) return Promise.reject(new Error("EIO: the disk said no"));
    const p = this.map.get(ref);
    return Promise.resolve(p ? structuredClone(p) : undefined);
  }

  put(position: Position): Promise<void> {
    if (this.failPut) return Promise.reject(new Error("ENOSPC: no space left on device"));
    this.puts++;
    this.map.set(position.workItem, structuredClone(position));
    this.trail.push(`put ${position.node}`);
    return Promise.resolve();
  }
}

let defaults: RoutingConfig | undefined;

/** The default routing settings (from the real schema's defaults). */
export async function defaultRouting(): Promise<RoutingConfig> {
  if (!defaults) {
    const { config } = await configFromText(null, {
      file: null,
      env: () => undefined,
      cwd: Deno.cwd(),
    });
    defaults = config.webhooks.ghWebhook.routing;
  }
  return structuredClone(defaults);
}

/** What {@linkcode setup} builds. */
export interface Setup {
  dispatcher: SessionDispatcher;
  runner: FakeRunner;
  github: FakeGitHub;
  hooks: FakeHooks;
  events: MemorySink;
  sessions: SessionStore;
  control: SessionControl;
  controlStore: ControlStore;
  registryDir: string;
  /** The settings in force: change it and the next event sees it. */
  routing: RoutingConfig;
  dir: string;
  /** The positions (in memory) when `loops` was asked for. */
  positions: MemoryPositions;
  /** The loops in force: change it and the next event sees it. */
  loops: { set: LoopSet };
  /** The steps of the ports in order: `put <node>`, `hook:<point>`, `comment`, `+label`, `-label`. */
  trail: string[];
  /** The parked operations, when `suspensions` was asked for. */
  suspensions?: SuspensionStore;
  /** Removes the temporary folder (`await using t = await setup()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@linkcode setup}. */
export interface SetupOptions {
  routing?: (r: RoutingConfig) => void;
  runner?: "process" | "tmux";
  templates?: PromptTemplates;
  /** Stands in for the fake writes (a real client against the fake GitHub server). */
  github?: DispatchGitHub;
  /** Stands in for the fake hooks (a real hook runner). */
  hooks?: DispatchHooks;
  /** Stands in for the fake runner (a real one: tmux on a private server, or processes). */
  harnessRunner?: DispatchRunner;
  /** Run loops: the built-ins (`true`) or these; positions in memory. Default: no loop runs. */
  loops?: boolean | LoopSet;
  /** Stands in for the in-memory positions (a real `LoopStore`, a port that throws). */
  positions?: LoopPositions;
  /** A session's own environment (as a daemon with its control endpoint gives). */
  sessionEnv?: (ref: string) => Record<string, string>;
  /** Keep parked operations (a real `SuspensionStore` in `<dir>/suspended`). Default: none. */
  suspensions?: boolean;
}

/** A dispatcher whose `dispatch` also waits for the turn's reactions (so tests can count them). */
class Settling extends SessionDispatcher {
  override async dispatch(
    event: RoutedEvent,
    opts?: Parameters<SessionDispatcher["dispatch"]>[1],
  ): Promise<DispatchOutcome> {
    const outcome = await super.dispatch(event, opts);
    await this.idle();
    return outcome;
  }
}

/** A dispatcher over a real registry in a temporary folder, with fakes around it. */
export async function setup(o: SetupOptions = {}): Promise<Setup> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-dispatch-" });
  const registryDir = join(dir, "sessions");
  const routing = await defaultRouting();
  routing.registryDir = registryDir;
  routing.spawnOnUnmatched = "labeled";
  routing.runner = o.runner ?? "tmux";
  routing.workspace.enabled = false;
  routing.harnessTrust.enabled = false;
  o.routing?.(routing);
  const events = new MemorySink();
  const runner = new FakeRunner(o.runner ?? "tmux");
  const harnessRunner = o.harnessRunner ?? runner;
  const github = new FakeGitHub();
  const hooks = new FakeHooks();
  // `o.routing` may point the registry at another rig's folder (a restart over the same files)
  const sessions = new SessionStore({ registry: new RegistryDir(routing.registryDir), events });
  const controlStore = new ControlStore(routing.registryDir);
  const trail: string[] = [];
  github.trail = trail;
  hooks.trail = trail;
  const positions = new MemoryPositions();
  positions.trail = trail;
  const loops = { set: o.loops === true ? BUILTIN_LOOPS : o.loops || BUILTIN_LOOPS };
  const loopPorts = o.loops ? { positions: o.positions ?? positions, loops: () => loops.set } : {};
  const control = new SessionControl({
    sessions,
    control: controlStore,
    endHarness: (s) => harnessRunner.close(hostedOf(s)),
    events,
    ...loopPorts,
  });
  let n = 0;
  const suspensions = o.suspensions
    ? new SuspensionStore({ dir: join(dir, "suspended"), durable: false })
    : undefined;
  const dispatcher = new Settling({
    config: () => routing,
    sessions,
    control,
    controlStore,
    runner: harnessRunner,
    adapterFor,
    github: o.github ?? github,
    hooks: o.hooks ?? hooks,
    events,
    templates: o.templates ?? defaultTemplates(),
    spawnWorkdir: dir,
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
    ...loopPorts,
    ...(o.sessionEnv ? { sessionEnv: o.sessionEnv } : {}),
    ...(suspensions ? { suspensions } : {}),
  });
  return {
    dispatcher,
    runner,
    github,
    hooks,
    events,
    sessions,
    control,
    controlStore,
    registryDir,
    routing,
    dir,
    positions,
    loops,
    trail,
    suspensions,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

let seq = 0;

/** Options of the event builders. */
export interface EventOpts {
  actor?: string | null;
  labeled?: boolean;
  deliveryId?: string;
  action?: string;
  repo?: string;
}

function base(number: number, o: EventOpts) {
  const repo = o.repo ?? "octo/repo";
  const workItem = parseWorkItem(`github:${repo}#${number}`)!;
  return {
    workItem,
    deliveryId: o.deliveryId ?? `d-${++seq}`,
    via: "gh-webhook" as const,
    actor: o.actor === undefined ? "alice" : o.actor,
    labeled: o.labeled ?? true,
    repository: repo,
  };
}

/** An issue comment on `#number` saying `body`. */
export function comment(number: number, body: string, o: EventOpts = {}): RoutedEvent {
  const b = base(number, o);
  const id = 1000 + seq;
  const url = `https://github.com/${b.repository}/issues/${number}#issuecomment-${id}`;
  return {
    workItem: b.workItem,
    kind: "comment",
    ghEvent: "issue_comment",
    action: o.action ?? "created",
    deliveryId: b.deliveryId,
    via: b.via,
    actor: b.actor,
    labeled: b.labeled,
    text: body,
    subject: { kind: "issue_comment", id, url, number },
    repository: b.repository,
    item: { kind: "issue", url: `https://github.com/${b.repository}/issues/${number}` },
  };
}

/** An `issues` event (labeled, opened, …) on `#number`. */
export function itemEvent(number: number, o: EventOpts = {}): RoutedEvent {
  const b = base(number, o);
  const action = o.action ?? "labeled";
  return {
    workItem: b.workItem,
    kind: "item",
    ghEvent: "issues",
    action,
    deliveryId: b.deliveryId,
    via: b.via,
    actor: b.actor,
    labeled: b.labeled,
    text: "",
    subject: { kind: "issue", id: 77, number },
    repository: b.repository,
    item: { kind: "issue", title: "Fix the thing", state: "open" },
    label: "the-loop: auto-execute",
  };
}

/** The poller's presence nudge for `#number`. */
export function presence(number: number, o: EventOpts = {}): RoutedEvent {
  return { ...itemEvent(number, { ...o, action: "opened" }), kind: "presence" };
}

/** A `workflow_run` for `#number`. */
export function ciEvent(number: number, o: EventOpts = {}): RoutedEvent {
  const b = base(number, o);
  return {
    workItem: b.workItem,
    kind: "ci",
    ghEvent: "workflow_run",
    action: "completed",
    deliveryId: b.deliveryId,
    via: b.via,
    actor: null,
    labeled: false,
    text: "",
    repository: b.repository,
    ci: { name: "ci", conclusion: "failure", branch: `issue-${number}` },
  };
}

/** `#number` closed (an issue), or a PR closed/merged (`own`: the PR's own session). */
export function closeEvent(
  number: number,
  o: EventOpts & { pr?: boolean; merged?: boolean; own?: boolean; linkedFrom?: string } = {},
): RoutedEvent {
  const b = base(number, o);
  return {
    workItem: b.workItem,
    kind: "close",
    ghEvent: o.pr ? "pull_request" : "issues",
    action: "closed",
    deliveryId: b.deliveryId,
    via: b.via,
    actor: b.actor,
    labeled: b.labeled,
    text: "",
    close: { state: o.merged ? "merged" : "closed", own: o.own ?? true },
    ...(o.linkedFrom ? { linkedFrom: o.linkedFrom } : {}),
    subject: { kind: "issue", id: 78, number },
    repository: b.repository,
  };
}

/**
 * Starts `#1`'s session, then holds its next delivery (`first`): resolves once that delivery is
 * under way, with the gate to release it and its outcome to come.
 */
export async function holdingFirstDelivery(
  t: Setup,
): Promise<{ held: Deferred; first: Promise<DispatchOutcome> }> {
  await t.dispatcher.dispatch(comment(1, "the-loop:start-execution"));
  const held = new Deferred();
  t.runner.gate = (call) => call.op === "deliver" ? held.promise : undefined;
  const first = t.dispatcher.dispatch(comment(1, "first"));
  await until(() => t.runner.calls.length === 2, "the first delivery");
  return { held, first };
}

/** Waits until `check` holds (every millisecond); the bound only fails a hung test. */
export { until };

/** The event types emitted, in order (without the sessions engineer's and hooks'). */
export function types(events: MemorySink, prefix = ""): string[] {
  return events.records.map((r) => r.event).filter((e) => e.startsWith(prefix));
}
