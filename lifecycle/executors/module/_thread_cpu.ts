/**
 * Tells a worker that spins (a busy loop: its thread burns a core) from one that is blocked
 * (`Atomics.wait`, a synchronous read: its thread sleeps). Neither answers a ping and neither
 * is stopped by `terminate()` in Deno 2.9, but only the first holds a CPU.
 *
 * It reads the CPU time of each of this process's threads twice, `windowMs` apart. Deno names a
 * worker's thread `worker-<n>`; the hook's stuck worker is the one such thread that burned CPU
 * meanwhile, other than the threads already found spinning (they never stop, so they are
 * remembered and left out). None burned CPU: it is blocked. Process-wide CPU time (what
 * `process.cpuUsage()` gives) could not tell a second spinner from a first one still running.
 *
 * Deno refuses `/proc` to anything short of `--allow-all`, which the-loop does not run with;
 * a `/bin/sh` child (the-loop has `--allow-run`) reads it instead, only on this rare path (a
 * timed-out worker that did not answer its ping). Linux only; elsewhere, or when the child
 * cannot run, the answer is `unknown`.
 *
 * @module
 */
import type { Stuck } from "../../executor.ts";

/** The share of one core a thread must have used over the window to count as spinning. */
const SPIN_SHARE = 0.25;

/** How long the two readings are apart, ms. */
const WINDOW_MS = 200;

/** `/proc/.../stat` clock ticks per second (USER_HZ): 100 on every Linux Deno runs on. */
const TICKS_PER_SECOND = 100;

/** Thread ids already found spinning in this process: they burn CPU for good. */
const spinners = new Set<string>();

// two readings of every thread's stat line, `--` between them
const SCRIPT = 'cd "/proc/$0/task" || exit 1; grep -H "" */stat; echo --; sleep "$1"; ' +
  'grep -H "" */stat';

/** One `tid/stat:…` line: the thread's id, name and CPU ticks (utime + stime). */
export function parseStatLine(line: string): { tid: string; comm: string; ticks: number } | null {
  const m = /^(\d+)\/stat:\d+ \((.*)\) (.*)$/.exec(line);
  if (!m) return null;
  // the fields after "(comm) ": state is the 1st, utime the 12th, stime the 13th
  const f = m[3].split(" ");
  const ticks = Number(f[11]) + Number(f[12]);
  return Number.isFinite(ticks) ? { tid: m[1], comm: m[2], ticks } : null;
}

/** The `worker-*` threads' ticks in each reading of the script's output. */
export function parseReadings(text: string): [Map<string, number>, Map<string, number>] | null {
  const parts = text.split("\n--\n");
  if (parts.length !== 2) return null;
  const [a, b] = parts.map((part) => {
    const out = new Map<string, number>();
    for (const line of part.split("\n")) {
      const t = parseStatLine(line);
      if (t && t.comm.startsWith("worker-")) out.set(t.tid, t.ticks);
    }
    return out;
  });
  return [a, b];
}

/**
 * Which worker thread, if any, burned CPU between the readings (known spinners left out)? Its
 * id, or `null` when none did.
 */
export function newSpinner(
  readings: [Map<string, number>, Map<string, number>],
  windowMs: number,
  known: ReadonlySet<string> = spinners,
): string | null {
  const [before, after] = readings;
  let best: [string, number] | null = null;
  for (const [tid, ticks] of after) {
    if (known.has(tid) || !before.has(tid)) continue;
    const used = ticks - before.get(tid)!;
    if (!best || used > best[1]) best = [tid, used];
  }
  const threshold = (windowMs / 1000) * TICKS_PER_SECOND * SPIN_SHARE;
  return best && best[1] >= threshold ? best[0] : null;
}

/** Is the stuck worker spinning or blocked? Reads the threads over `windowMs`. Never throws. */
export async function classifyStuck(windowMs = WINDOW_MS): Promise<Stuck> {
  if (Deno.build.os !== "linux") return "unknown";
  let text: string;
  try {
    const out = await new Deno.Command("/bin/sh", {
      args: ["-c", SCRIPT, String(Deno.pid), (windowMs / 1000).toFixed(3)],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(windowMs + 5_000),
    }).output();
    if (!out.success) return "unknown";
    text = new TextDecoder().decode(out.stdout);
  } catch {
    return "unknown"; // no /bin/sh, no --allow-run
  }
  const readings = parseReadings(text);
  if (!readings || readings[1].size === 0) return "unknown";
  const tid = newSpinner(readings, windowMs);
  if (tid === null) return "blocked";
  spinners.add(tid);
  return "spinning";
}
