/**
 * CPU time of processes, for benches that share the machine's cores between the process under
 * test and its instruments (loaders, fake harnesses, tmux): how busy the cores were explains a
 * latency tail that the code under test cannot remove.
 *
 * Read from Linux's `/proc/<pid>/task/<tid>/schedstat` (nanoseconds each thread ran); threads
 * that ended before a reading are not counted. Off Linux, or for a process already gone, the
 * readings are `null`. A bench reads its own CPU with `process.cpuUsage()` instead.
 *
 * ```ts
 * const before = await cpuNs([pid]);
 * // … the load …
 * const used = cpuMsSince(before, await cpuNs([pid])); // ms of CPU the process used meanwhile
 * ```
 *
 * @module
 */

/** A reading of several processes' threads: pid → thread id → nanoseconds run (`null`: unread). */
export type CpuReading = Map<number, Map<string, number> | null>;

/**
 * Reads the CPU time of every thread of each of `pids`. Through `grep`: Deno lets a program read
 * `/proc/<pid>/…` only with every permission, and the benches run with the daemon's own.
 */
export async function cpuNs(pids: number[]): Promise<CpuReading> {
  const reading: CpuReading = new Map(pids.map((pid) => [pid, null]));
  let text = "";
  try {
    const out = await new Deno.Command("sh", {
      args: [
        "-c",
        'for p in "$@"; do grep -H . /proc/"$p"/task/*/schedstat; done',
        "_",
        ...pids.map(String),
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    text = new TextDecoder().decode(out.stdout);
  } catch {
    return reading; // no sh: nothing read
  }
  // `/proc/<pid>/task/<tid>/schedstat:<ns on CPU> <ns waiting> <slices>`
  for (const m of text.matchAll(/^\/proc\/(\d+)\/task\/(\d+)\/schedstat:(\d+) /gm)) {
    const pid = Number(m[1]);
    let threads = reading.get(pid);
    if (!threads) reading.set(pid, threads = new Map());
    threads.set(m[2], Number(m[3]));
  }
  return reading;
}

/**
 * Milliseconds of CPU the processes used between two readings (threads started meanwhile count
 * from zero); `null` when none of them could be read.
 */
export function cpuMsSince(before: CpuReading, after: CpuReading): number | null {
  let ns = 0;
  let seen = false;
  for (const [pid, threads] of after) {
    if (!threads) continue;
    seen = true;
    const earlier = before.get(pid);
    for (const [tid, t] of threads) ns += t - (earlier?.get(tid) ?? 0);
  }
  return seen ? Math.round(ns / 1e4) / 100 : null;
}
