/**
 * The checks behind `hooks validate`: every enabled hook is loaded ON ITS OWN through the real
 * loader (strict, as a daemon loads at start: the same bundler and sandbox for a module, the
 * program resolved for a command, the token variable for a remote), so one bad hook never hides
 * another's problems; `online` also asks each remote's `/health`. Everything loaded is closed.
 *
 * Imported lazily by `validate.ts`: it pulls in the bundler and the executors.
 *
 * @module
 */
import type { EnvReader } from "../../config/mod.ts";
import type { Problem } from "../../errors.ts";
import {
  type Declaration,
  type Entry,
  entryProblem,
  type Executor,
  loadExecutors,
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
}

/** Options for {@linkcode preflight}. */
export interface PreflightOptions {
  env: EnvReader;
  /** Also GET each remote's `/health`. */
  online: boolean;
}

/** Checks every hook of `decl`; never throws for a hook's own failure. */
export async function preflight(decl: Declaration, opts: PreflightOptions): Promise<HookReport[]> {
  try {
    return await Promise.all(decl.entries.map((e) => checkOne(decl, e, opts)));
  } finally {
    await stopBundler();
  }
}

async function checkOne(decl: Declaration, e: Entry, opts: PreflightOptions): Promise<HookReport> {
  const report: HookReport = {
    name: e.name,
    kind: e.kind,
    enabled: e.enabled,
    ok: true,
    checked: [],
    problems: [],
  };
  if (!e.enabled) {
    report.checked.push("disabled: not loaded");
    return report;
  }
  const one: Declaration = { ...decl, entries: [e] };
  const loaded = await loadExecutors(one, { env: opts.env, strict: true });
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
      report.problems.push(
        entryProblem(
          decl,
          e,
          "implements no lifecycle point, so it would never be called; " +
            "override at least one LifecycleHooks method (see 'the-loop hooks points')",
        ),
      );
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
