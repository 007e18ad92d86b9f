/**
 * Test helpers for the poller: a scripted dispatcher (an answer per delivery), and a harness
 * wiring a real {@linkcode Poller} to the fake GitHub, the real router, a temp state root (ledger,
 * registry, control records) and a memory sink.
 *
 * @module
 */
import { join } from "node:path";
import type { RoutingConfig } from "../config/mod.ts";
import type { Dispatcher, DispatchOutcome, RoutedEvent } from "../dispatch/mod.ts";
import { parseControl } from "../dispatch/mod.ts";
import { MemorySink } from "../events/mod.ts";
import { GitHubClient } from "../github/mod.ts";
import { DEFAULT_EVENTS, Router } from "../ingress/mod.ts";
import { ControlStore } from "../state/control.ts";
import { RegistryDir, type SessionRecord } from "../state/registry.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { FakeGitHub } from "../tests/fake_github/mod.ts";
import { ControlDirView } from "./control_view.ts";
import { Ledger } from "./ledger.ts";
import { type CycleReport, Poller } from "./poller.ts";
import type { PollSettings } from "./settings.ts";

export const REPO = "octo/repo";
export const LABEL = "the-loop: auto-execute";
export const TOKEN = "t0k-poll";
export const START = "the-loop:start-execution";
export const STOP = "the-loop:stop-execution";

/** The control settings the tests use (defaults; `requireStartCommand` as asked). */
export function controlConfig(requireStartCommand = false): RoutingConfig["control"] {
  return {
    enabled: true,
    requireStartCommand,
    keywords: {
      start: START,
      stop: STOP,
      pause: "the-loop:pause-execution",
      resume: "the-loop:resume-execution",
    },
    ghBinary: "gh",
  };
}

/** Answers each delivery as scripted (default: delivered) and records what it was handed. */
export class ScriptedDispatcher implements Dispatcher {
  readonly events: RoutedEvent[] = [];
  /** Answers by delivery id prefix or predicate, consumed in order; else `fallback`. */
  readonly script: { match: (e: RoutedEvent) => boolean; outcome: DispatchOutcome }[] = [];
  fallback: DispatchOutcome = { status: "delivered" };

  /** Answers the next delivery `match` accepts with `outcome` (`times` times). */
  answer(match: (e: RoutedEvent) => boolean, outcome: DispatchOutcome, times = 1): void {
    for (let i = 0; i < times; i++) this.script.push({ match, outcome });
  }

  dispatch(event: RoutedEvent): Promise<DispatchOutcome> {
    this.events.push(event);
    const i = this.script.findIndex((s) => s.match(event));
    if (i < 0) return Promise.resolve(this.fallback);
    const [s] = this.script.splice(i, 1);
    return Promise.resolve(s.outcome);
  }

  /** `[kind, ref, actor]` of what was handed over, for compact assertions. */
  summary(): [string, string, string | null][] {
    return this.events.map((e) => [e.kind, e.workItem.ref, e.actor]);
  }
}

/** Options of {@linkcode pollHarness}. */
export interface HarnessOptions {
  authorizedUsers?: string[];
  requireStartCommand?: boolean;
  maxRetries?: number;
  repos?: string[];
  issues?: boolean;
  pullRequests?: boolean;
  version?: string;
}

/** A poller over the fake GitHub, with everything it touches in reach. */
export interface Harness {
  gh: FakeGitHub;
  client: GitHubClient;
  dispatcher: ScriptedDispatcher;
  sink: MemorySink;
  root: string;
  registry: RegistryDir;
  control: ControlStore;
  settings: PollSettings;
  ledgerPath: string;
  /** The poller (rebuilt by {@linkcode Harness.restart}, as a fresh process would be). */
  poller: Poller;
  ledger: Ledger;
  /** Runs one cycle. */
  cycle(opts?: { signal?: AbortSignal }): Promise<CycleReport>;
  /** A fresh poller, router and ledger on the same state root (a restart). */
  restart(opts?: { version?: string }): Promise<void>;
  /** Writes a live session record for `ref`. */
  addSession(ref: string): Promise<void>;
  close(): Promise<void>;
}

/** A registry record for `ref`, as the dispatcher would write it. */
export function sessionRecord(ref: string): SessionRecord {
  const item = parseWorkItem(ref)!;
  return {
    workItem: {
      ref: item.ref,
      provider: "github",
      owner: item.owner,
      repo: item.repo,
      number: item.number,
    },
    harness: "claude",
    harnessSessionId: crypto.randomUUID(),
    cwd: "/tmp",
    status: "active",
    createdAt: new Date().toISOString(),
    lastEventAt: null,
    tmuxTarget: "",
    recentDeliveries: [],
    url: "",
  };
}

/** Starts the fake GitHub and a poller over it. */
export async function pollHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addRepo(REPO);
  const root = await Deno.makeTempDir({ prefix: "the-loop-poll-" });
  const sink = new MemorySink({ source: "poll", strict: true });
  const client = new GitHubClient({ apiUrl: gh.url, token: TOKEN, events: sink, maxAttempts: 1 });
  const dispatcher = new ScriptedDispatcher();
  const registry = new RegistryDir(join(root, "sessions"));
  const control = new ControlStore(join(root, "sessions"));
  const authorizedUsers = opts.authorizedUsers ?? ["alice"];
  const settings: PollSettings = {
    sources: [{
      index: 0,
      repos: opts.repos ?? [REPO],
      label: LABEL,
      issues: opts.issues ?? true,
      pullRequests: opts.pullRequests ?? true,
    }],
    intervalSeconds: 60,
    maxRetries: opts.maxRetries ?? 3,
    authorizedUsers: authorizedUsers.map((u) => u.toLowerCase()),
    authorizedBots: [],
    requireStartCommand: opts.requireStartCommand ?? false,
    apiHost: "github.com",
  };
  const ledgerPath = join(root, "sessions", "poll-state.json");
  const cc = controlConfig(settings.requireStartCommand);
  const build = async (version?: string) => {
    const ledger = await Ledger.load(ledgerPath);
    const router = new Router({
      dispatcher,
      sessions: registry,
      github: client,
      events: sink,
      policy: { events: [...DEFAULT_EVENTS], authorizedUsers, autoExecuteLabel: LABEL },
    });
    const poller = new Poller({
      gh: client,
      sink: router,
      ledger,
      sessions: registry,
      control: new ControlDirView(control),
      events: sink,
      parseControl: (text) => parseControl(text, cc),
      version: version ?? opts.version,
    });
    return { ledger, poller };
  };
  let built = await build();
  const h: Harness = {
    gh,
    client,
    dispatcher,
    sink,
    root,
    registry,
    control,
    settings,
    ledgerPath,
    get poller() {
      return built.poller;
    },
    get ledger() {
      return built.ledger;
    },
    cycle: (o) => built.poller.cycle(settings, o),
    async restart(o = {}) {
      built = await build(o.version);
    },
    addSession: (ref) => registry.write(sessionRecord(ref)),
    async close() {
      await gh.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
  return h;
}

/** The ref of `octo/repo#n`. */
export function ref(n: number, repo = REPO): string {
  return `github:${repo}#${n}`;
}
