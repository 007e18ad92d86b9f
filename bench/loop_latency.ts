/**
 * Bench: end-to-end latency from a signed webhook POST to the harness being
 * invoked. The real receiver (`the-loop gh-webhook start`, a subprocess) runs the sessions
 * dispatcher with `runner: tmux` on a private tmux server; 20 labelled issues are started by an
 * authorized user's start comment, each booting the fake `claude` (`tests/fake_harness/`) in its
 * own tmux session. Then `issue_comment` deliveries go out round-robin across the sessions, and
 * each one's latency is the fake's `ts` for the pasted line carrying the comment's body minus the
 * POST's send time (both epoch time on this machine's clock). **Serial**: one at a time, each
 * sent once the previous one arrived. **Burst**: all at once. Target: burst p99 < 100 ms (the
 * original: serial p50 14 ms, burst p99 1.46 s).
 *
 * Each delivery goes out on a TCP connection of its own, opened before the send, as prepared
 * bytes (`_raw_post.ts`): the send time is when its bytes were written, and a burst's two
 * hundred requests leave within milliseconds of each other instead of trickling out of a `fetch`
 * client that competes with the daemon for the same two cores.
 *
 * `THE_LOOP_BENCH_QUICK=1` sends 40 events per mode instead of 200. {@linkcode startLoopRig} is
 * also what `tests/loop_burst_test.ts` drives.
 *
 * @module
 */
import { join } from "node:path";
import { FakeGitHub, signature } from "../tests/fake_github/mod.ts";
import { pathWithFakes, readHarnessLog } from "../tests/fake_harness/mod.ts";
import process from "node:process";
import { cpuMsSince, cpuNs, type CpuReading } from "./_cpu.ts";
import { spawnCli } from "../tests/_test_utils.ts";
import { RegistryDir } from "../state/registry.ts";
import { percentile, round } from "./_stats.ts";
import { answers, arm, fire, requestBytes, send } from "./_raw_post.ts";

/** The repository the rig's issues live in. */
export const LOOP_REPO = "loop/bench";
const LABEL = "the-loop: auto-execute";
const SECRET = "loop-bench-webhook-secret";
const TOKEN = "loop-bench-token";
const SESSIONS = 20;
const TARGET_BURST_P99_MS = 100;
const READY = /gh-webhook: listening on (\S+) \(pid \d+\)/;

/** One `input` line the fake harness read (a line of a pasted prompt). */
export interface InputLine {
  line: string;
  /** The fake's conversation id (`--session-id`): which session read it. */
  session: string | null;
  pid: number;
  /** Epoch milliseconds when the fake read it. */
  tsMs: number;
}

/** A signed delivery, ready to POST. */
export interface Prepared {
  deliveryId: string;
  body: string;
  signature: string;
}

/** The running receiver, its fake GitHub, and its 20 live tmux-hosted sessions. */
export interface LoopRig {
  dir: string;
  url: string;
  harnessLog: string;
  eventsLog: string;
  gh: FakeGitHub;
  /** The issue numbers, one live session each. */
  issues: number[];
  /** Issue number → the live session's harness conversation id (the fake's `session`). */
  sessionOf: Map<number, string>;
  /** A new comment by alice on `issue` (in the fake GitHub), as a signed delivery. */
  prepare(issue: number, text: string, deliveryId?: string): Promise<Prepared>;
  /** POSTs it; `sentAt` is `Date.now()` just before the request went out. */
  post(p: Prepared): Promise<{ status: number; sentAt: number }>;
  /** The POST of `p` as bytes (for `_raw_post.ts`). */
  bytesOf(p: Prepared): Uint8Array;
  /** The input lines the fakes logged since the last call (the log is read incrementally). */
  newInputs(): Promise<InputLine[]>;
  /**
   * Resolves once the fakes logged `n` input lines starting with `prefix` (counted in the log's
   * text, not parsed: during a burst the bench's CPU is taken from the daemon); rejects after
   * `timeoutMs`.
   */
  awaitInputs(prefix: string, n: number, timeoutMs: number): Promise<void>;
  /** The processes on the delivery path: the receiver, the tmux server, the harnesses. */
  processes(): Promise<{ receiver: number; tmux: number[]; harnesses: number[] }>;
  /** What the receiver printed on stderr so far. */
  stderr(): string;
  /** SIGKILLs the receiver (the tmux server and its harnesses live on). */
  kill(): Promise<void>;
  /** Starts the receiver again (after {@linkcode kill}); `url` is then its new address. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs: number,
  context: () => string = () => "",
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Adds the fakes' new input lines to `seen` until `done()` holds; throws after 90 s (only a hung
 * rig), with `detail()` and the receiver's stderr.
 */
export async function collectUntil(
  rig: LoopRig,
  seen: InputLine[],
  done: () => boolean,
  what: string,
  detail: () => string = () => `${seen.length} lines`,
): Promise<void> {
  const until = Date.now() + 90_000;
  for (;;) {
    seen.push(...await rig.newInputs());
    if (done()) return;
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}: ${detail()}\n${rig.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Reads a file's new text, from where the previous read stopped (`offset` at first). */
function textTail(path: string, offset = 0): () => Promise<string> {
  const decoder = new TextDecoder();
  return async () => {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return "";
      throw err;
    }
    let text = "";
    try {
      await file.seek(offset, Deno.SeekMode.Start);
      const buf = new Uint8Array(256 * 1024);
      for (let n = await file.read(buf); n !== null; n = await file.read(buf)) {
        text += decoder.decode(buf.subarray(0, n), { stream: true });
        offset += n;
      }
    } finally {
      file.close();
    }
    return text;
  };
}

/** Reads a JSON-lines file from where the previous read stopped. */
function tailer(path: string): () => Promise<Record<string, unknown>[]> {
  const next = textTail(path);
  let carry = "";
  return async () => {
    carry += await next();
    const end = carry.lastIndexOf("\n");
    if (end < 0) return [];
    const lines = carry.slice(0, end).split("\n").filter((l) => l.trim());
    carry = carry.slice(end + 1);
    return lines.map((l) => JSON.parse(l));
  };
}

function configYaml(dir: string, apiUrl: string, extra: string, runner: string): string {
  return `version: "0.1.0"
state:
  root: ${join(dir, "state")}
github:
  apiUrl: ${apiUrl}
  tokenEnv: FAKE_GH_TOKEN
webhooks:
  ghWebhook:
    routing:
      enabled: true
      dispatcher: sessions
      authorizedUsers: [alice]
      # a load rig: one author's bursts of hundreds, past the budgets that would pause them
      loopGuard: { maxPerWindow: 0 }
      budgets: { deliveriesPerHour: 0, spawnsPerDay: 0 }
      spawnOnUnmatched: labeled
      registryDir: ${join(dir, "registry")}
      runner: ${runner}
      harnessEnv: { pass: [FAKE_HARNESS_LOG, FAKE_HARNESS_SLEEP_MS] }
      harnessTrust:
        enabled: false
      workspace:
        enabled: false
${extra}`;
}

/**
 * Starts the receiver (tmux runner on a private server, fake harness on PATH) and brings up
 * `sessions` live sessions the product's way: a labelled issue and an authorized start comment
 * each, delivered as signed webhooks; resolves once every harness booted and every session is
 * in the registry.
 */
export async function startLoopRig(
  opts: {
    sessions?: number;
    routingYaml?: string;
    /** Default `tmux`. */
    runner?: "tmux" | "process";
    /** Added to the receiver's environment (and so the fake harness's). */
    env?: Record<string, string>;
  } = {},
): Promise<LoopRig> {
  const count = opts.sessions ?? SESSIONS;
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-loop-" }));
  const harnessLog = join(dir, "harness.jsonl");
  const eventsLog = join(dir, "state", "logs", "events.jsonl");
  const socket = `the-loop-loop-${crypto.randomUUID()}`;
  const gh = await FakeGitHub.start({ token: TOKEN });
  await Deno.mkdir(join(dir, ".the-loop"));
  await Deno.writeTextFile(
    join(dir, ".the-loop", "cli-config.yaml"),
    configYaml(dir, gh.url, opts.routingYaml ?? "", opts.runner ?? "tmux"),
  );
  const receiverEnv = {
    FAKE_GH_TOKEN: TOKEN,
    THE_LOOP_GH_WEBHOOK_SECRET: SECRET,
    THE_LOOP_TMUX_SOCKET: socket,
    TMUX_TMPDIR: dir,
    PATH: pathWithFakes(),
    FAKE_HARNESS_LOG: harnessLog,
    ...opts.env,
  };
  const out = { stdout: "", stderr: "" };
  const drain = async (s: ReadableStream<Uint8Array>, key: "stdout" | "stderr") => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) out[key] += chunk;
  };
  const launch = () => {
    const child = spawnCli(["gh-webhook", "start", "--port", "0"], { cwd: dir, env: receiverEnv });
    out.stdout = "";
    const drained = Promise.all([drain(child.stdout, "stdout"), drain(child.stderr, "stderr")]);
    return { child, drained };
  };
  let { child, drained } = launch();
  /** `tmux -L <socket> …` on the rig's private server; its stdout. */
  const tmux = async (...args: string[]): Promise<string> => {
    const out = await new Deno.Command("tmux", {
      args: ["-L", socket, ...args],
      env: { TMUX_TMPDIR: dir },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(out.stdout);
  };
  const close = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await drained.catch(() => {});
    await tmux("kill-server").catch(() => {});
    // the control clients of receivers the crash trials SIGKILLed can outlive kill-server (and
    // keep its server from exiting): end whatever still names the rig's socket
    await new Deno.Command("pkill", {
      args: ["-KILL", "-f", socket],
      stdout: "null",
      stderr: "null",
    })
      .output().catch(() => {});
    await gh.close();
    if (!Deno.env.get("THE_LOOP_BENCH_KEEP_RIG")) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  };
  const ready = () =>
    waitFor(
      () => Promise.resolve(READY.exec(out.stdout)?.[1]),
      "the receiver's ready line",
      30_000,
      () => out.stderr,
    );
  try {
    let url = await ready();
    const issues: number[] = [];
    for (let i = 1; i <= count; i++) {
      const issue = gh.world.addIssue(LOOP_REPO, {
        user: "alice",
        title: `loop issue ${i}`,
        labels: [LABEL],
      });
      gh.world.addComment(LOOP_REPO, issue.number, "the-loop:start-execution", "alice");
      issues.push(issue.number);
    }
    for (const r of await gh.deliver(url, { secret: SECRET })) {
      if (r.status !== 202) throw new Error(`a setup delivery got ${r.status}: ${r.body}`);
    }
    const registry = new RegistryDir(join(dir, "registry"));
    const live = await waitFor(
      async () => {
        const records = await registry.listLive();
        return records.length >= count ? records : undefined;
      },
      `${count} live sessions`,
      120_000,
      () => out.stderr,
    );
    const sessionOf = new Map(live.map((r) => [r.workItem.number, r.harnessSessionId]));
    const booted = tailer(harnessLog);
    const boots = new Set<string>();
    // a headless spawn is registered once its run is over (its boot names no id: the id comes
    // from its output); an interactive one is waited for until the harness in the pane is up
    const headless = opts.runner === "process";
    await waitFor(
      async () => {
        for (const e of await booted()) if (e.event === "boot") boots.add(String(e.session));
        return headless || [...sessionOf.values()].every((s) => boots.has(s)) ? true : undefined;
      },
      `${count} harness boots`,
      60_000,
      () => out.stderr,
    );
    const inputs = tailer(harnessLog);
    await inputs(); // the boots are not inputs
    return {
      dir,
      get url() {
        return url;
      },
      harnessLog,
      eventsLog,
      gh,
      issues,
      sessionOf,
      async prepare(issue, text, deliveryId = crypto.randomUUID()) {
        gh.world.addComment(LOOP_REPO, issue, text, "alice");
        gh.skipChanges();
        const body = JSON.stringify(gh.world.changes.at(-1)!.payload);
        return { deliveryId, body, signature: await signature(SECRET, body) };
      },
      async post(p) {
        const sentAt = Date.now();
        const res = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-github-event": "issue_comment",
            "x-github-delivery": p.deliveryId,
            "x-hub-signature-256": p.signature,
          },
          body: p.body,
        });
        await res.body?.cancel();
        return { status: res.status, sentAt };
      },
      bytesOf(p) {
        return requestBytes(new URL(url), {
          "content-type": "application/json",
          "x-github-event": "issue_comment",
          "x-github-delivery": p.deliveryId,
          "x-hub-signature-256": p.signature,
        }, p.body);
      },
      async awaitInputs(prefix, n, timeoutMs) {
        const needle = `"line": ${JSON.stringify(prefix).slice(0, -1)}`;
        const next = textTail(harnessLog, Deno.statSync(harnessLog).size); // before any send
        let seen = 0;
        let tail = "";
        const until = Date.now() + timeoutMs;
        while (seen < n) {
          if (Date.now() > until) throw new Error(`${seen} of ${n} "${prefix}" lines arrived`);
          await new Promise((r) => setTimeout(r, 20));
          const text = tail + await next();
          for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) seen++;
          tail = text.slice(-needle.length + 1); // a needle cut between two reads
        }
      },
      async newInputs() {
        return (await inputs()).filter((e) => e.event === "input").map((e) => ({
          line: String(e.line),
          session: e.session as string | null,
          pid: Number(e.pid),
          tsMs: Number(e.ts) * 1000,
        }));
      },
      async processes() {
        const server = Number((await tmux("display-message", "-p", "#{pid}")).trim());
        const harnesses = (await readHarnessLog(harnessLog))
          .filter((e) => e.event === "boot").map((e) => e.pid);
        return { receiver: child.pid, tmux: server > 0 ? [server] : [], harnesses };
      },
      stderr: () => out.stderr,
      async kill() {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
        await child.status;
        await drained.catch(() => {});
      },
      async restart() {
        ({ child, drained } = launch());
        url = await ready();
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Latency figures of one mode. */
interface ModeFigures {
  events: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Deliveries whose line never reached a harness within the bound. */
  lost: number;
  /** Lines that reached a session other than their issue's. */
  misdelivered: number;
  /**
   * Burst only: milliseconds of CPU each part used from the first send until every line arrived
   * (Linux), the wall time of that window, and how many of the machine's cores they kept busy.
   */
  cpu_ms?: Record<string, number | null>;
}

function figures(ms: number[], lost: number, misdelivered: number): ModeFigures {
  ms.sort((a, b) => a - b);
  return {
    events: ms.length,
    p50_ms: round(percentile(ms, 50)),
    p99_ms: round(percentile(ms, 99)),
    max_ms: round(ms.at(-1) ?? 0),
    lost,
    misdelivered,
  };
}

/** Sends `n` events round-robin over the rig's issues, serially or all at once. */
async function measure(rig: LoopRig, n: number, mode: "serial" | "burst"): Promise<ModeFigures> {
  const planned = await Promise.all(Array.from({ length: n }, (_, i) => {
    const issue = rig.issues[i % rig.issues.length];
    const text = `${mode} ${issue} ${i}`;
    return rig.prepare(issue, text).then((p) => ({ issue, text, p, sentAt: 0 }));
  }));
  const byText = new Map(planned.map((x) => [x.text, x]));
  const arrived = new Map<string, InputLine>();
  let misdelivered = 0;
  const collect = async () => {
    for (const input of await rig.newInputs()) {
      const x = byText.get(input.line);
      if (!x || arrived.has(x.text)) continue;
      arrived.set(x.text, input);
      if (input.session !== rig.sessionOf.get(x.issue)) misdelivered++;
    }
  };
  const bound = 60_000;
  // how often the harness log is read: the latencies are the fake's own time stamps, so this only
  // paces the bench; a burst's reads are spaced out, the bench's CPU being the daemon's too
  const every = mode === "serial" ? 2 : 20;
  const waitUntil = async (done: () => boolean) => {
    const until = Date.now() + bound;
    while (!done() && Date.now() < until) {
      await new Promise((r) => setTimeout(r, every));
      await collect();
    }
  };
  const check = (status: number) => {
    if (status !== 202) throw new Error(`a delivery got ${status}:\n${rig.stderr()}`);
  };
  const url = new URL(rig.url);
  if (mode === "serial") {
    for (const x of planned) {
      const [r] = await fire(await arm(url, [rig.bytesOf(x.p)]));
      check(r.status);
      x.sentAt = r.sentAt;
      await waitUntil(() => arrived.has(x.text));
    }
  } else {
    const armed = await arm(url, planned.map((x) => rig.bytesOf(x.p)));
    const procs = await rig.processes();
    const pids = [procs.receiver, ...procs.tmux, ...procs.harnesses];
    const before = await cpuNs(pids);
    const benchBefore = process.cpuUsage();
    // the answers are read once every line arrived: reading 200 of them during the burst would
    // be the sender's CPU taken from the daemon on a machine of two cores
    const arrival = rig.awaitInputs(`${mode} `, planned.length, bound);
    (await send(armed)).forEach((sentAt, i) => planned[i].sentAt = sentAt);
    await arrival;
    const cpu = cpuOf(procs, before, await cpuNs(pids), process.cpuUsage(benchBefore));
    await collect();
    (await answers(armed)).forEach(check);
    const ms = latencies(planned, arrived);
    // the window: the first send until the last line arrived
    const wall = Math.max(...[...arrived.values()].map((a) => a.tsMs)) -
      Math.min(...planned.map((x) => x.sentAt));
    return {
      ...figures(ms, planned.length - arrived.size, misdelivered),
      cpu_ms: { ...cpu, wall: round(wall), cores_busy: cpu.total && round(cpu.total / wall) },
    };
  }
  return figures(latencies(planned, arrived), planned.length - arrived.size, misdelivered);
}

function latencies(
  planned: { text: string; sentAt: number }[],
  arrived: Map<string, InputLine>,
): number[] {
  return planned.filter((x) => arrived.has(x.text)).map((x) =>
    arrived.get(x.text)!.tsMs - x.sentAt
  );
}

/** Each part's CPU between two readings (the receiver, tmux, the harnesses, this bench). */
function cpuOf(
  procs: { receiver: number; tmux: number[]; harnesses: number[] },
  before: CpuReading,
  after: CpuReading,
  bench: NodeJS.CpuUsage,
): Record<string, number | null> {
  const part = (pids: number[]) =>
    cpuMsSince(before, new Map(pids.map((p) => [p, after.get(p) ?? null])));
  const parts = {
    receiver: part([procs.receiver]),
    tmux_server: part(procs.tmux),
    harnesses: part(procs.harnesses),
    // the bench itself: the burst's sender, the fake GitHub, the harness-log reader
    bench: round((bench.user + bench.system) / 1000),
  };
  const known = Object.values(parts).filter((v): v is number => v !== null);
  return { ...parts, total: known.length ? round(known.reduce((a, b) => a + b, 0)) : null };
}

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const events = Deno.env.get("THE_LOOP_BENCH_QUICK") ? 40 : 200;
  const rig = await startLoopRig({
    sessions: SESSIONS,
    routingYaml: Deno.env.get("THE_LOOP_BENCH_LOOP_ROUTING") ?? "",
  });
  try {
    const serial = await measure(rig, events, "serial");
    const burst = await measure(rig, events, "burst");
    return {
      sessions: SESSIONS,
      runner: "tmux",
      harness: "fake claude (tests/fake_harness)",
      cores: navigator.hardwareConcurrency,
      measured: "webhook POST sent → the fake harness read the comment's line from its pane",
      serial,
      burst,
      target_burst_p99_ms: TARGET_BURST_P99_MS,
      meets_target: burst.lost === 0 && burst.misdelivered === 0 &&
        burst.p99_ms < TARGET_BURST_P99_MS,
    };
  } finally {
    await rig.close();
  }
}

if (import.meta.main) {
  console.log(JSON.stringify(await run(), null, 2));
}
