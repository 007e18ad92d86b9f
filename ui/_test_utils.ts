/**
 * A state root for the status page's tests, written by the real stores: sessions
 * (`SessionStore`), loop positions (`LoopStore`, moved by the loops' own machine), suspensions
 * (`SuspensionStore`), the event log (`EventLog`) and the poller's status file (`writeStatus`).
 *
 * | item              | what it is                                                   |
 * | ----------------- | ------------------------------------------------------------ |
 * | `octo/demo#1`     | a tmux session asking a question; its loop at `work`         |
 * | `octo/demo#2`     | a paused headless session                                    |
 * | `octo/demo#3`     | no session; its loop (adhoc) waits at the gate `review`      |
 * | `octo/demo#4`     | a suspension: hook `policy` failed at `input_received`       |
 * | `octo/demo#5`     | a budget's pause (`deliveriesPerHour`)                       |
 *
 * @module
 */
import { join } from "node:path";
import { loadConfig, type LoadedConfig } from "../config/mod.ts";
import { SessionStore, type SuspensionRecord, SuspensionStore } from "../dispatch/mod.ts";
import { EventLog } from "../events/mod.ts";
import { advance, BUILTIN_LOOPS, enter, LoopStore } from "../loops/mod.ts";
import { writeStatus } from "../poll/mod.ts";
import { RegistryDir } from "../state/registry.ts";
import { parseWorkItem } from "../state/work_item.ts";

/** The fixture's clock: every record is written as of this instant. */
export const T0 = new Date("2026-12-05T10:00:00.000Z");

/** What {@linkcode fixture} made. */
export interface Fixture {
  dir: string;
  loaded: LoadedConfig;
  root: string;
  /** The refs of the module doc's table, by number. */
  ref: (n: number) => string;
}

const ref = (n: number) => `github:octo/demo#${n}`;
const item = (n: number) => parseWorkItem(ref(n))!;

function suspension(n: number, extra: Partial<SuspensionRecord>): SuspensionRecord {
  return {
    version: 1,
    id: `github-octo-demo-${n}-s0000000${n}`,
    workItem: ref(n),
    point: "input_received",
    hook: "policy",
    mode: "wait_for_resume",
    declared: "wait_for_resume",
    error: "policy: <script>alert(1)</script> exited 1",
    attempts: 1,
    since: new Date(T0.getTime() - 120_000).toISOString(),
    context: {},
    held: [],
    ...extra,
  };
}

/** Writes the state root of the module doc into a temp folder. */
export async function fixture(o: { yaml?: string } = {}): Promise<Fixture> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-ui-" });
  await Deno.mkdir(join(dir, ".the-loop"));
  await Deno.writeTextFile(
    join(dir, ".the-loop", "cli-config.yaml"),
    o.yaml ??
      "webhooks:\n  ghWebhook:\n    routing:\n      budgets: { deliveriesPerHour: 10 }\n",
  );
  const env = (name: string) => name === "HOME" ? dir : undefined;
  const loaded = await loadConfig({ env, cwd: dir });
  const { config } = loaded;
  const root = config.state.root;
  const events = new EventLog({ path: config.eventLog.path, source: "test" });
  const now = () => T0;
  const registry = new RegistryDir(config.webhooks.ghWebhook.routing.registryDir);
  const sessions = new SessionStore({ registry, events, now });
  await sessions.register({
    item: item(1),
    harness: "claude",
    harnessSessionId: "h-1",
    cwd: dir,
    tmuxTarget: "loop-github-octo-demo-1",
    url: "https://github.com/octo/demo/issues/1",
  });
  await sessions.update(ref(1), {
    awaitingInput: {
      question: "Keep the v1 endpoint, or <b>remove</b> it?",
      summary: "API cleanup",
      since: new Date(T0.getTime() - 90_000).toISOString(),
      commentUrl: "",
    },
  });
  await sessions.register({ item: item(2), harness: "codex", harnessSessionId: "h-2", cwd: dir });
  await sessions.update(ref(2), { status: "paused" });
  const positions = new LoopStore({ dir: join(root, "loops"), now });
  const adhoc = BUILTIN_LOOPS.get("adhoc")!;
  await positions.put(enter(adhoc, { ref: ref(1), now: T0 }).position);
  const at3 = enter(adhoc, { ref: ref(3), now: T0 }).position;
  await positions.put(
    advance(adhoc, at3, { outcome: "done", kind: "agent", by: "agent", now: T0 }).position,
  );
  const suspended = new SuspensionStore({ dir: join(root, "suspended"), now });
  await suspended.put(suspension(4, {}));
  await suspended.put(
    suspension(5, {
      hook: "",
      declared: "budget",
      error: "",
      budget: { budget: "deliveriesPerHour", used: 10, limit: 10 },
    }),
  );
  events.emit("session.spawned", {
    work_item: ref(1),
    harness: "claude",
    title: "Remove the <v1> endpoint",
  });
  for (const ms of [10, 20, 30, 40, 500]) {
    events.emit("hooks.ran", {
      point: "input_received",
      hook: "policy",
      kind: "command",
      work_item: ref(1),
      duration_ms: ms,
      disposition: "passed",
      changed: [],
    });
  }
  events.emit("hooks.failed", {
    point: "input_received",
    hook: "policy",
    error: "exit 1",
    required: false,
    work_item: ref(4),
  });
  events.emit("hooks.refused", {
    point: "session_spawn",
    hook: "gate",
    reason: "not today",
    work_item: ref(2),
  });
  events.emit("dispatch.failed", { work_item: ref(2), stage: "deliver", error: "pane gone" }, {
    level: "warning",
  });
  events.emit("poll.cycle", { items_seen: 5, rate_limit_remaining: 4321 });
  events.emit("webhook.received", { delivery_id: "d-1" });
  events.close();
  await writeStatus(root, {
    startedAt: new Date(T0.getTime() - 3600_000).toISOString(),
    lastCycleAt: new Date(T0.getTime() - 30_000).toISOString(),
    intervalSeconds: 60,
    lastCycle: null,
    lastError: null,
    rateLimit: null,
    degraded: [],
  });
  return { dir, loaded, root, ref };
}
