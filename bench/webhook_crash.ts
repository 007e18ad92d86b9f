/**
 * The SIGKILL trials of the durable webhook inbox (decision 0010): the real `gh-webhook start`
 * (sessions dispatcher, tmux runner on a private server, the fake `claude` in each pane, see
 * `loop_latency.ts`) takes a burst of comments over its live sessions and is SIGKILLed at a
 * random moment of it; it is restarted, and then GitHub's part is played: a full redelivery of
 * the same delivery ids. Per trial it checks that every delivery answered 202 before the kill
 * arrives without any redelivery (the inbox's replay), and in the end that no comment was lost,
 * that a session got at most one repeated delivery (one gathered batch) per kill, and that every
 * repeat's prompt said it may repeat.
 *
 * @module
 */
import {
  collectUntil,
  type InputLine,
  type LoopRig,
  type Prepared,
  startLoopRig,
} from "./loop_latency.ts";

/** Options of {@linkcode crashTrials}. */
export interface CrashOptions {
  /** Live sessions (items). */
  sessions: number;
  /** Comments per item in each burst. */
  perItem: number;
  /** Kills (one trial each). */
  kills: number;
  /** The kill comes within this many ms of the burst's start. */
  maxDelayMs: number;
}

/** What the trials found. */
export interface CrashFigures {
  kills: number;
  comments: number;
  /** Answered 202 before a kill (what the inbox had to keep). */
  accepted_before_kill: number;
  /** Of those, reached their session by replay alone (before any redelivery). */
  replayed_before_redelivery: number;
  /** Comments that never reached their session. */
  lost: number;
  /** Deliveries that reached their session a second time. */
  repeated: number;
  /** Repeats whose prompt did not say it may repeat. */
  unflagged: number;
  /**
   * The most pastes (batches) of one session whose comments came again after one kill (at most 1
   * is promised): the pastes are told apart in the fake's log by each prompt's first line.
   */
  max_repeated_batches_per_session: number;
  wall_s: number;
}

const CRASH = /^crash (\d+) (\d+) (\d+)$/;
const NOTE = "(the-loop: this may repeat a message delivered just before a restart";
/** The first line of the built-in event prompt. */
const PROMPT_START = "A new event arrived on the work item";
/** The first line of the built-in frame of a gathered batch, and the start of its closing. */
const FRAME_START = /^\d+ new events arrived on the work item/;
const CLOSING = "Carry on with your work on";

/** Runs the trials on a rig of its own; throws only when the rig hangs. */
export async function crashTrials(o: CrashOptions): Promise<CrashFigures> {
  const started = performance.now();
  const rig = await startLoopRig({ sessions: o.sessions });
  const seen: InputLine[] = [];
  const accepted = new Set<string>();
  let replayed = 0;
  try {
    for (let t = 0; t < o.kills; t++) {
      const burst = new Map<number, Prepared[]>();
      for (const issue of rig.issues) {
        const list: Prepared[] = [];
        for (let k = 0; k < o.perItem; k++) {
          list.push(
            await rig.prepare(issue, `crash ${t} ${issue} ${k}`, `crash-${t}-${issue}-${k}`),
          );
        }
        burst.set(issue, list);
      }
      const ok: string[] = [];
      // the kill comes once a random share of the burst was answered (routing lags behind the
      // answers, so deliveries are in flight into sessions then), or after a random delay
      const target = Math.floor(Math.random() * o.sessions * o.perItem);
      let reached!: () => void;
      const half = new Promise<void>((r) => (reached = r));
      const sending = Promise.all([...burst.values()].map(async (list) => {
        for (const p of list) {
          try {
            if ((await rig.post(p)).status === 202) {
              ok.push(`crash ${p.deliveryId.slice(6).replaceAll("-", " ")}`);
              if (ok.length >= target) reached();
            }
          } catch {
            return; // the receiver is gone: GitHub shows a failure (redelivered below)
          }
        }
      }));
      await Promise.race([
        half,
        new Promise((r) => setTimeout(r, Math.random() * o.maxDelayMs)),
      ]);
      await rig.kill();
      await sending;
      reached();
      for (const line of ok) accepted.add(line);
      await rig.restart();
      // the 202s before the kill arrive on their own: the inbox replays them
      const lines = () => new Set(seen.map((l) => l.line));
      await collectUntil(
        rig,
        seen,
        () => {
          const have = lines();
          return ok.every((l) => have.has(l));
        },
        `the ${ok.length} deliveries answered 202 before kill ${t + 1}`,
        () => {
          const have = lines();
          return `missing: ${ok.filter((l) => !have.has(l)).slice(0, 20).join(", ")}`;
        },
      );
      replayed += ok.length;
      // GitHub's part: every id redelivered, each item's in order, then one more to each item
      await Promise.all([...burst.values()].map(async (list) => {
        for (const p of list) {
          const r = await rig.post(p);
          if (r.status !== 202) throw new Error(`a redelivery got ${r.status}`);
        }
      }));
      await Promise.all(rig.issues.map(async (issue) => {
        const r = await rig.post(await rig.prepare(issue, `done ${t} ${issue}`));
        if (r.status !== 202) throw new Error(`a delivery got ${r.status}`);
      }));
      await collectUntil(rig, seen, () => {
        const have = lines();
        return rig.issues.every((issue) => have.has(`done ${t} ${issue}`));
      }, `the deliveries after trial ${t + 1}`);
    }
    return {
      ...tally(rig, seen, o),
      accepted_before_kill: accepted.size,
      replayed_before_redelivery: replayed,
      wall_s: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    await rig.close();
  }
}

function tally(rig: LoopRig, seen: InputLine[], o: CrashOptions) {
  let lost = 0;
  let repeated = 0;
  let unflagged = 0;
  let maxBatches = 0;
  for (const issue of rig.issues) {
    const session = rig.sessionOf.get(issue)!;
    const mine = seen.filter((l) => l.session === session);
    const count = new Map<string, number>();
    const firstPaste = new Map<string, number>(); // a comment → the paste it first came in
    const repeatsOf = new Map<number, Set<number>>(); // trial → the pastes whose lines repeated
    let flag = false;
    let paste = 0;
    let afterSeparator = false;
    let inFrame = false; // between a frame's first line and its closing
    for (const { line } of mine) {
      // a prompt's first line starts a new paste unless a batch's `---` came just before it; in
      // a frame, a repeat line is the next event's
      if (FRAME_START.test(line)) {
        if (!afterSeparator) paste++;
        afterSeparator = false;
        inFrame = true;
        continue;
      }
      if (line.startsWith(NOTE) || line.startsWith(PROMPT_START)) {
        if (!inFrame && !afterSeparator && !(line.startsWith(PROMPT_START) && flag)) paste++;
        afterSeparator = false;
        if (line.startsWith(NOTE)) flag = true;
        continue;
      }
      if (line.startsWith(CLOSING)) inFrame = false;
      if (line === "---") afterSeparator = true;
      else if (line.trim() !== "") afterSeparator = false;
      const m = CRASH.exec(line);
      if (!m || Number(m[2]) !== issue) continue;
      const n = (count.get(line) ?? 0) + 1;
      count.set(line, n);
      if (n === 1) firstPaste.set(line, paste);
      else {
        repeated++;
        if (!flag) unflagged++;
        const pastes = repeatsOf.get(Number(m[1])) ?? new Set();
        pastes.add(firstPaste.get(line)!);
        repeatsOf.set(Number(m[1]), pastes);
      }
      flag = false;
    }
    for (let t = 0; t < o.kills; t++) {
      for (let k = 0; k < o.perItem; k++) if (!count.has(`crash ${t} ${issue} ${k}`)) lost++;
      // one batch: every repeated comment of a kill first came in the same paste
      maxBatches = Math.max(maxBatches, repeatsOf.get(t)?.size ?? 0);
    }
  }
  return {
    kills: o.kills,
    comments: o.kills * o.sessions * o.perItem,
    lost,
    repeated,
    unflagged,
    max_repeated_batches_per_session: maxBatches,
  };
}

/**
 * The bench: 30 kills, each at a random moment of a 200-comment burst over 20 items
 * (`THE_LOOP_BENCH_QUICK=1`: 3 kills; `tests/webhook_crash_test.ts` runs the 30).
 */
export async function run(): Promise<Record<string, unknown>> {
  const kills = Deno.env.get("THE_LOOP_BENCH_QUICK") ? 3 : 30;
  const figures = await crashTrials({ sessions: 20, perItem: 10, kills, maxDelayMs: 400 });
  return { ...figures };
}
