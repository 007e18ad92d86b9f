/**
 * The checks behind `hooks validate`: every enabled hook is loaded ON ITS OWN through the real
 * loader (strict, as a daemon loads at start: the same bundler and sandbox for a module, the
 * program resolved for a command, the token variable for a remote), so one bad hook never hides
 * another's problems; `online` also asks each remote's `/health`. Everything loaded is closed.
 *
 * Hooks load CONCURRENTLY, at most {@linkcode PREFLIGHT_CONCURRENCY} at a time (loading is CPU
 * work; the bundler, when a hook needs it, is one esbuild shared by all). A loaded module hook is
 * then watched for a moment (`_crash_watch.ts`) without holding a loading slot, so the watches
 * overlap the next loads; at most {@linkcode PREFLIGHT_OPEN} hooks are open at once, loading or
 * watched (each worker costs ~14 MB). Each report is handed to `onReport` the moment its hook is
 * done, so a hook whose top level hangs costs its own load timeout and holds back no one else's
 * line.
 *
 * Imported lazily by `validate.ts`: it pulls in the bundler and the executors.
 *
 * @module
 */
import { Slots } from "../../async/mod.ts";
import type { EnvReader } from "../../config/mod.ts";
import type { Problem } from "../../errors.ts";
import {
  type Declaration,
  type Entry,
  entryProblem,
  type Executor,
  loadExecutors,
  misspeltNotes,
  noPointProblem,
  type RemoteExecutor,
  stopBundler,
  timeoutMs,
} from "../../lifecycle/mod.ts";
import { POINT_NAMES } from "../../lifecycle/sdk/mod.ts";
import { crashesText, watchForCrashes } from "./_crash_watch.ts";

/** What `hooks validate` found about one hook. */
export interface HookReport {
  name: string;
  kind: Entry["kind"];
  enabled: boolean;
  ok: boolean;
  /** What was checked and held, one short phrase each. */
  checked: string[];
  /** The points it will be called at (a loaded hook only). */
  points?: string[];
  problems: Problem[];
  /**
   * Warnings that do not fail validation: a module hook's method that looks like a point
   * misspelt, when the hook implements other points (it is still called at those).
   */
  notes?: string[];
  /** How long loading it took (bundle, sandbox start, top level), ms; 0 for a disabled hook. */
  loadMs: number;
}

/**
 * How many hooks load at once: enough to overlap workers' starts, and for a few hooks whose top
 * levels hang to hold back no one else's load.
 */
const PREFLIGHT_CONCURRENCY = 4;

/**
 * How many hooks are open at once (loading, or loaded and watched): bounds the memory, each
 * worker holding ~14 MB (ten would pass 200 MB with the CLI's own ~85 MB).
 */
const PREFLIGHT_OPEN = 8;

/** Options for {@linkcode preflight}. */
export interface PreflightOptions {
  env: EnvReader;
  /** Also GET each remote's `/health`. */
  online: boolean;
  /** Called as each hook's report is done (in the order they finish). */
  onReport?: (report: HookReport, index: number) => void;
  /** Called as each hook starts loading. */
  onStart?: (entry: Entry, index: number) => void;
  /** At most this many hooks load at once; default {@linkcode PREFLIGHT_CONCURRENCY}. */
  concurrency?: number;
  /** At most this many hooks are open at once; default {@linkcode PREFLIGHT_OPEN}. */
  open?: number;
}

/**
 * Checks every hook of `decl` (reports in declaration order); never throws for a hook's own
 * failure.
 */
export async function preflight(decl: Declaration, opts: PreflightOptions): Promise<HookReport[]> {
  const reports: HookReport[] = new Array(decl.entries.length);
  const done = (r: HookReport, i: number) => {
    reports[i] = r;
    opts.onReport?.(r, i);
  };
  // disabled hooks load nothing: their lines come first
  decl.entries.forEach((e, i) => {
    if (!e.enabled) done(disabledReport(e), i);
  });
  const queue = decl.entries.map((e, i) => [e, i] as const).filter(([e]) => e.enabled);
  const loading = new Slots(() => opts.concurrency ?? PREFLIGHT_CONCURRENCY);
  const open = new Slots(() => opts.open ?? PREFLIGHT_OPEN);
  const one = ([e, i]: readonly [Entry, number]) =>
    open.run(async () => {
      opts.onStart?.(e, i);
      done(await checkOne(decl, e, { ...opts, loading }), i);
    });
  try {
    await Promise.all(queue.map(one));
  } finally {
    await stopBundler();
  }
  return reports;
}

function disabledReport(e: Entry): HookReport {
  return {
    name: e.name,
    kind: e.kind,
    enabled: false,
    ok: true,
    checked: ["disabled: not loaded"],
    problems: [],
    loadMs: 0,
  };
}

async function checkOne(
  decl: Declaration,
  e: Entry,
  opts: PreflightOptions & { loading: Slots },
): Promise<HookReport> {
  const start = performance.now();
  const report: HookReport = {
    name: e.name,
    kind: e.kind,
    enabled: e.enabled,
    ok: true,
    checked: [],
    problems: [],
    loadMs: 0,
  };
  const one: Declaration = { ...decl, entries: [e] };
  const loaded = await opts.loading.run(() => loadExecutors(one, { env: opts.env, strict: true }));
  report.loadMs = Math.round(performance.now() - start);
  report.problems.push(...loaded.problems);
  const exec = loaded.executors[0] as Executor | undefined;
  try {
    if (exec) await checkLoaded(decl, e, exec, report, opts);
  } finally {
    await exec?.close().catch(() => {});
  }
  report.ok = report.problems.length === 0;
  return report;
}

async function checkLoaded(
  decl: Declaration,
  e: Entry,
  exec: Executor,
  report: HookReport,
  opts: PreflightOptions,
): Promise<void> {
  report.points = POINT_NAMES.filter((p) => exec.handles(p));
  if (e.kind === "module") {
    report.checked.push(`loaded in its ${e.isolation} sandbox`);
    const crashes = await watchForCrashes(exec);
    if (crashes) report.problems.push(entryProblem(decl, e, crashesText(crashes)));
    if (report.points.length === 0) {
      report.problems.push(entryProblem(decl, e, noPointProblem(exec)));
    } else {
      // a note, not a problem: the hook is still called at the points it does implement
      const notes = misspeltNotes(e.name, exec);
      if (notes.length > 0) report.notes = notes;
    }
  } else if (e.kind === "command") {
    report.checked.push(`${e.argv[0]} is executable`);
  } else {
    report.checked.push(e.tokenEnv ? `$${e.tokenEnv} is set` : "no token needed");
    if (opts.online) {
      try {
        const h = await (exec as RemoteExecutor).health({ timeoutMs: timeoutMs(e) });
        report.checked.push(`/health answered ${h.status} in ${Math.round(h.elapsedMs)} ms`);
      } catch (err) {
        report.problems.push(entryProblem(decl, e, err)); // it says the url and what /health did
      }
    }
  }
}
