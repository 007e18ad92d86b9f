/**
 * The snapshot's shell: reads a state root into a {@linkcode SnapshotInput} for the pure core
 * (`snapshot.ts`). It only reads — no file renamed aside, folded or written — so a read route
 * has no side effect:
 *
 * | what                 | from                                                                 |
 * | -------------------- | -------------------------------------------------------------------- |
 * | sessions             | `routing.registryDir` (`state/registry.ts`)                          |
 * | loop positions       | `<state.root>/loops/*.json` (parsed with `readPosition`; a bad one skipped) |
 * | suspensions, pauses  | `<state.root>/suspended/*.json` (a bad one skipped)                  |
 * | events               | the event log's last 4 MiB, at most 5,000 records                    |
 * | poller, receiver     | their pidfiles' locks, `poll-status.json`, `gh-webhook-status.json`  |
 * | circuits             | `<state.root>/hooks/circuits/<hook>.json`                            |
 * | panes                | one `tmux list-panes -a` on the daemon's server (2 s at most)        |
 * | inbox                | the sizes of `<state.root>/webhook-inbox/*.seg`                      |
 *
 * @module
 */
import { join } from "node:path";
import { withDeadline } from "../async/mod.ts";
import type { CliConfig } from "../config/mod.ts";
import { lockHolder } from "../daemon/mod.ts";
import type { SuspensionRecord } from "../dispatch/mod.ts";
import { type CircuitRecord, FileCircuitStore } from "../lifecycle/mod.ts";
import { type LoopSet, type Position, readPosition } from "../loops/mod.ts";
import { RegistryDir, type SessionRecord } from "../state/registry.ts";
import { VERSION } from "../version.ts";
import { readTail } from "./_log.ts";
import type { PollStatusFacts, SnapshotInput, WebhookStatusFacts } from "./snapshot.ts";
import type { TerminalMode } from "./types.ts";

/** What {@linkcode StateReader} reads from. */
export interface StateReaderOptions {
  config: CliConfig;
  /** The loops in force (undefined: they do not read; gates then show no outcomes). */
  loops?: LoopSet;
  /** The daemon's tmux server (`["-L", socket]`), `[]` for the default one. */
  tmuxArgs: string[];
  terminal: TerminalMode;
  startedAt: Date;
  /** Told what could not be read (once per kind). */
  warn?: (message: string) => void;
}

/** How much of the event log a snapshot reads. */
const TAIL = { limit: 5000, maxBytes: 4 * 1024 * 1024 };

async function jsonFiles(dir: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return out;
    throw error;
  }
  await Promise.all(
    entries.filter((e) => e.isFile && e.name.endsWith(".json")).map(async (e) => {
      try {
        out.push(JSON.parse(await Deno.readTextFile(join(dir, e.name))));
      } catch { /* being replaced, or not one: skipped (the daemon sets it aside) */ }
    }),
  );
  return out;
}

function isSuspension(v: unknown): v is SuspensionRecord {
  const r = v as Record<string, unknown> | null;
  return typeof r === "object" && r !== null && r.version === 1 && typeof r.id === "string" &&
    typeof r.workItem === "string" && typeof r.since === "string" && Array.isArray(r.held);
}

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    const v = JSON.parse(await Deno.readTextFile(path));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function pollFacts(v: Record<string, unknown> | null): PollStatusFacts | null {
  if (!v || typeof v.startedAt !== "string") return null;
  return {
    startedAt: v.startedAt,
    lastCycleAt: typeof v.lastCycleAt === "string" ? v.lastCycleAt : null,
    intervalSeconds: typeof v.intervalSeconds === "number" ? v.intervalSeconds : 60,
  };
}

function webhookFacts(v: Record<string, unknown> | null): WebhookStatusFacts | null {
  if (!v || typeof v.startedAt !== "string") return null;
  return { startedAt: v.startedAt, url: typeof v.url === "string" ? v.url : "" };
}

async function running(pidfile: string): Promise<boolean> {
  try {
    return (await lockHolder(pidfile)).live;
  } catch {
    return false;
  }
}

async function inboxBytes(root: string): Promise<number> {
  let n = 0;
  try {
    for await (const e of Deno.readDir(join(root, "webhook-inbox"))) {
      if (e.isFile && e.name.endsWith(".seg")) {
        n += (await Deno.stat(join(root, "webhook-inbox", e.name)).catch(() => ({ size: 0 })))
          .size;
      }
    }
  } catch { /* no inbox */ }
  return n;
}

/** Reads a state root for the snapshot; one per server (the registry's listing is kept). */
export class StateReader {
  readonly #o: StateReaderOptions;
  readonly #registry: RegistryDir;
  readonly #circuits: FileCircuitStore;
  readonly #warned = new Set<string>();

  constructor(o: StateReaderOptions) {
    this.#o = o;
    this.#registry = new RegistryDir(o.config.webhooks.ghWebhook.routing.registryDir);
    this.#circuits = new FileCircuitStore(o.config.state.root);
  }

  #warn(kind: string, message: string): void {
    if (this.#warned.has(kind)) return;
    this.#warned.add(kind);
    this.#o.warn?.(message);
  }

  async #positions(root: string): Promise<Position[]> {
    const out: Position[] = [];
    for (const v of await jsonFiles(join(root, "loops"))) {
      const ref = (v as { workItem?: unknown } | null)?.workItem;
      if (typeof ref !== "string") continue;
      const read = readPosition(JSON.stringify(v), ref);
      if ("position" in read) out.push(read.position);
    }
    return out;
  }

  async #circuitsOf(names: Iterable<string>): Promise<Map<string, CircuitRecord>> {
    const out = new Map<string, CircuitRecord>();
    await Promise.all([...new Set(names)].map(async (name) => {
      try {
        const rec = await this.#circuits.read(name);
        if (rec) out.set(name, rec);
      } catch { /* not a hook's name, or unreadable: closed as far as the page can tell */ }
    }));
    return out;
  }

  /** The tmux sessions of the daemon's server with a live pane; null when tmux cannot say. */
  async #panes(sessions: SessionRecord[]): Promise<Map<string, boolean> | null> {
    if (!sessions.some((s) => s.status !== "closed" && s.tmuxTarget)) return new Map();
    try {
      const out = await withDeadline(
        (signal) =>
          new Deno.Command("tmux", {
            // the flag first, one space, the name: tmux without a UTF-8 locale prints a tab as `_`
            args: [...this.#o.tmuxArgs, "list-panes", "-a", "-F", "#{pane_dead} #{session_name}"],
            stdin: "null",
            stdout: "piped",
            stderr: "piped",
            signal,
          }).output(),
        { ms: 2000 },
      );
      const panes = new Map<string, boolean>();
      if (!out.success) {
        // no server running: every session of it is gone
        const text = new TextDecoder().decode(out.stderr);
        return /no server running|error connecting|No such file/i.test(text) ? panes : null;
      }
      for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
        const cut = line.indexOf(" ");
        if (cut < 0) continue;
        const name = line.slice(cut + 1);
        panes.set(name, panes.get(name) === true || line.slice(0, cut) === "0");
      }
      return panes;
    } catch (error) {
      this.#warn("tmux", `ui: tmux could not be asked about the sessions' panes: ${error}`);
      return null;
    }
  }

  /** Everything the snapshot needs, read now. */
  async read(): Promise<SnapshotInput> {
    const { config } = this.#o;
    const root = config.state.root;
    const [sessions, positions, suspended, tail, pollRunning, hookRunning] = await Promise.all([
      this.#registry.listAll().catch((error) => {
        this.#warn("registry", `ui: the session registry could not be read: ${error}`);
        return [] as SessionRecord[];
      }),
      this.#positions(root),
      jsonFiles(join(root, "suspended")),
      readTail(config.eventLog.path, TAIL).catch((error) => {
        this.#warn("events", `ui: the event log could not be read: ${error}`);
        return { records: [], end: 0 };
      }),
      running(config.polling.pidfile),
      running(config.webhooks.ghWebhook.pidfile),
    ]);
    const hooks = config.hooks.map((h) => h.name);
    const seen = tail.records.map((r) => r.record.hook).filter((h) => typeof h === "string");
    const [panes, circuits, pollStatus, hookStatus, inbox] = await Promise.all([
      this.#panes(sessions),
      this.#circuitsOf([...hooks, ...(seen as string[])]),
      readJson(join(root, "poll-status.json")),
      readJson(join(root, "gh-webhook-status.json")),
      inboxBytes(root),
    ]);
    return {
      stateRoot: root,
      sessions,
      positions,
      suspensions: suspended.filter(isSuspension),
      events: tail.records,
      eventLog: { path: config.eventLog.path, end: tail.end },
      poll: { running: pollRunning, status: pollFacts(pollStatus) },
      webhook: { running: hookRunning, status: webhookFacts(hookStatus) },
      panes,
      circuits,
      hooks,
      inboxBytes: inbox,
      loops: this.#o.loops,
      budgets: config.webhooks.ghWebhook.routing.budgets,
      terminal: this.#o.terminal,
      version: VERSION,
      startedAt: this.#o.startedAt,
    };
  }
}
