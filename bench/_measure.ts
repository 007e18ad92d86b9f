/**
 * Runs a command several times and reports its wall time (median) and the peak resident set
 * size of the child. Each run is two processes, one after the other: the command on its own,
 * timed from spawn to exit (so the wall time is the child's alone, with no wrapper start-up in
 * it), then the command under an RSS wrapper, whose time is not used. Peak RSS comes from
 * `/usr/bin/time -f %M` (Debian package `time`) when it exists, else from a python3 helper
 * reading `getrusage(RUSAGE_CHILDREN)` after the child is reaped; with neither it is reported as
 * null (and the wrapped run is skipped).
 *
 * @module
 */

/** What {@linkcode measure} reports. */
export interface Measurement {
  runs: number;
  wall_ms_median: number;
  wall_ms_min: number;
  wall_ms_max: number;
  /** Peak RSS of the child in KiB: median and max over the runs (null when not measurable). */
  peak_rss_kib_median: number | null;
  peak_rss_kib_max: number | null;
  rss_method: "time" | "python3" | null;
  /** What the wall figures time: always the child alone, in runs without the RSS wrapper. */
  wall_measured: typeof WALL_MEASURED;
  /** Bytes the command printed on stdout in its last run (a sanity check). */
  stdout_bytes: number;
}

/** Options for {@linkcode measure}. */
export interface MeasureOptions {
  cwd: string;
  env: Record<string, string>;
  runs: number;
  /** Force a peak-RSS method (tests); default: `time` if present, else `python3`. */
  rssMethod?: "time" | "python3";
}

/** The {@linkcode Measurement.wall_measured} text. */
export const WALL_MEASURED = "the command alone, spawn to exit (RSS is taken in separate runs)";

const PY_RUSAGE = "import resource,subprocess,sys\n" +
  "r=subprocess.run(sys.argv[2:],stdout=sys.stdout,stderr=sys.stderr).returncode\n" +
  "open(sys.argv[1],'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n" +
  "sys.exit(r)";

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

async function which(name: string): Promise<string | null> {
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    if (exists(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return await Promise.resolve(null);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Runs `cmd args` to completion; throws when it fails. */
async function runOnce(cmd: string, args: string[], argv: string[], opts: MeasureOptions) {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `${argv.join(" ")} failed (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return out;
}

/** Runs `argv` `opts.runs` times (and as many again under the RSS wrapper); throws on a failure. */
export async function measure(argv: string[], opts: MeasureOptions): Promise<Measurement> {
  const python = await which("python3");
  const method = opts.rssMethod ?? (exists("/usr/bin/time") ? "time" : python ? "python3" : null);
  const rssFile = await Deno.makeTempFile({ prefix: "the-loop-bench-rss-" });
  const walls: number[] = [];
  const rss: number[] = [];
  let stdoutBytes = 0;
  try {
    for (let i = 0; i < opts.runs; i++) {
      const start = performance.now();
      const out = await runOnce(argv[0], argv.slice(1), argv, opts);
      walls.push(performance.now() - start);
      stdoutBytes = out.stdout.length;
      if (!method) continue;
      const [cmd, ...args] = method === "time"
        ? ["/usr/bin/time", "-f", "%M", "-o", rssFile, ...argv]
        : [python!, "-c", PY_RUSAGE, rssFile, ...argv];
      await runOnce(cmd, args, argv, opts);
      rss.push(Number((await Deno.readTextFile(rssFile)).trim().split("\n").pop()));
    }
  } finally {
    await Deno.remove(rssFile).catch(() => {});
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    runs: opts.runs,
    wall_ms_median: round(median(walls)),
    wall_ms_min: round(Math.min(...walls)),
    wall_ms_max: round(Math.max(...walls)),
    peak_rss_kib_median: rss.length ? median(rss) : null,
    peak_rss_kib_max: rss.length ? Math.max(...rss) : null,
    rss_method: method,
    wall_measured: WALL_MEASURED,
    stdout_bytes: stdoutBytes,
  };
}
