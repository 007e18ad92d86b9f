/**
 * Every message the hook engine writes about a hook, in one place — as rollup's
 * `src/utils/logs.ts` writes all of its own. A failure is built here as a {@linkcode HookLog}:
 * its code, the hook's name, kind and point, and the message written from them; the executor
 * throws it as the class it picks (`new HookFailure(log)`), and never words a failure itself.
 * The runner's warnings and reasons, the circuits' warnings and the loader's problems are
 * written here too.
 *
 * How a message names its hook: `hook "name"` ({@linkcode named}). Remote and command failures
 * and the runner's and circuits' warnings still say `hook name` bare ({@linkcode bare}): their
 * exact text is pinned by tests that were not to change with the rename; they switch to
 * `named` together when those assertions may.
 *
 * @module
 */
import type { ExecutorKind, HookErrorCode, HookLog, Stuck, Telemetry } from "./executor.ts";
import type { PointName } from "./sdk/points.ts";

/** Whom a message is about. */
export interface HookAt {
  /** The declaration's `name`. */
  hook: string;
  kind: ExecutorKind;
  /** A command's program (`argv[0]`) or a remote's url as a message may show it. */
  target?: string;
  /** The point being called, when a call is under way. */
  point?: PointName;
}

/** `hook "name"`: how a message names a hook. */
export function named(hook: string): string {
  return `hook "${hook}"`;
}

/** `hook name (target)`: a remote's or command's failure during a call. */
function aimed(at: HookAt): string {
  return at.target === undefined ? named(at.hook) : `${named(at.hook)} (${at.target})`;
}

/** `message` without a leading `hook "name": ` (it is about to be said around it). */
function withoutName(message: string, hook: string): string {
  const prefix = `${named(hook)}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

function log(
  code: HookErrorCode,
  at: HookAt,
  message: string,
  telemetry?: Telemetry,
): HookLog {
  return {
    code,
    message,
    hook: at.hook,
    kind: at.kind,
    ...(at.point !== undefined ? { point: at.point } : {}),
    ...(telemetry !== undefined ? { telemetry } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Module hooks (a worker, or a hook-host process)

/** What a worker that did not stop is doing, as a timed-out call's error says it. */
const STUCK_AT_CALL: Record<Stuck, string> = {
  spinning: "its worker busy-loops and holds a CPU core; it cannot be stopped",
  blocked: "its worker is blocked (e.g. Atomics.wait) and did not stop; it holds no CPU, " +
    "but its thread stays until the-loop exits",
  unknown: "its worker did not stop (a busy loop holding a CPU, or a blocking wait such as " +
    "Atomics.wait)",
};

/** The same, for a top level that did not finish loading. */
const STUCK_AT_LOAD: Record<Stuck, string> = {
  spinning: "its worker is busy-looping and cannot be stopped, so its thread is leaked " +
    "(holding a CPU) until the-loop exits",
  blocked: "its worker is blocked (e.g. Atomics.wait) and did not stop, so its thread is " +
    "leaked (holding no CPU) until the-loop exits",
  unknown: "its worker did not stop (a busy loop or a blocking wait), so its thread may be " +
    "leaked until the-loop exits",
};

/** Why a disabled hook's calls fail. */
const STILL: Record<Stuck, string> = {
  spinning: "its worker is still busy-looping",
  blocked: "its worker is still blocked, e.g. in Atomics.wait",
  unknown: "its worker is still busy or blocked",
};

/**
 * What became of a worker or process that had to be stopped: it answered a ping (`answers`,
 * it stopped), it is `killed` (a process), or it could not be stopped ({@linkcode Stuck}).
 */
export type Stopped = "answers" | "killed" | Stuck;

/** The hook is closed. */
export function closed(at: HookAt): HookLog {
  return log("closed", at, `${named(at.hook)} is closed`);
}

/** Every call fails: a call that could not be stopped left its thread `stuck`. */
export function disabled(at: HookAt, stuck: Stuck): HookLog {
  return log(
    "disabled",
    at,
    `${named(at.hook)} is disabled until the-loop restarts: its last call could not be ` +
      `stopped (${STILL[stuck]})`,
  );
}

/** Why a call fails at once while a restart waits out its backoff (`RestartBackoff.describe`). */
export function backoffText(
  what: "worker" | "process",
  deaths: number,
  last: string | undefined,
  waitMs: number,
): string {
  const secs = (Math.ceil(waitMs / 100) / 10).toFixed(1);
  return `its ${what} died ${deaths} time${deaths === 1 ? "" : "s"} in a row (last: ${last}); ` +
    `it is not started again for another ${secs} s, so this call fails now`;
}

/** A call fails at once: the hook keeps dying and is not started again yet. */
export function backingOff(at: HookAt, describe: string): HookLog {
  return log("backoff", at, `${named(at.hook)}: ${describe}`);
}

/** The worker died (an error that reached the-loop). */
export function workerDied(at: HookAt, why: string): HookLog {
  return log("crashed", at, `${named(at.hook)}: its worker died: ${why}`);
}

/** The worker's reply could not be deserialized. */
export function answerUnreadable(at: HookAt): HookLog {
  return log("bad-answer", at, `${named(at.hook)}: its answer could not be read`);
}

/** The call could not be posted to the worker. */
export function cannotSend(at: HookAt, why: string): HookLog {
  return log("transport", at, `${named(at.hook)}: cannot send the call: ${why}`);
}

/** The worker was replaced (after another call timed out) while this call waited. */
export function workerRestarted(at: HookAt): HookLog {
  return log("restarted", at, `${named(at.hook)}: its worker was restarted`);
}

/** How a hook-host process ended, from its exit status. */
export function processEnding(
  status: { code: number; signal: string | null },
  opts: { maxMemoryMb: number; memoryExitCode: number },
): string {
  if (status.code === opts.memoryExitCode) {
    return `passed its memory cap (${opts.maxMemoryMb} MiB)`;
  }
  if (status.signal === "SIGKILL") return "was killed";
  return `exited (${status.signal ? `signal ${status.signal}` : `code ${status.code}`}; ` +
    `out of memory? its budget is ${opts.maxMemoryMb} MiB)`;
}

/** The hook-host process ended (`ending` from {@linkcode processEnding}). */
export function processEnded(at: HookAt, ending: string): HookLog {
  return log("crashed", at, `${named(at.hook)}: its process ${ending}`);
}

/** A module call ran out of time (`at.point` set); `stopped` says what became of it. */
export function moduleTimedOut(at: HookAt, ms: number, stopped: Stopped): HookLog {
  const how = stopped === "answers"
    ? ""
    : stopped === "killed"
    ? "; its process was killed"
    : `; ${STUCK_AT_CALL[stopped]}, so the hook is disabled until the-loop restarts`;
  return log("timeout", at, `${named(at.hook)} timed out after ${ms} ms at ${at.point}${how}`);
}

/** A module call failed with an error that is not a hook failure (`at.point` set). */
export function failedAt(at: HookAt, why: string): HookLog {
  return log("failed", at, `${named(at.hook)} failed at ${at.point}: ${why}`);
}

/**
 * The hook's own error, as it threw it: not named again (the runner says which hook and point
 * it was). Without a text, the hook host's fallback.
 */
export function threw(at: HookAt, text: string | undefined): HookLog {
  return log("threw", at, text ?? `${named(at.hook)} failed at ${at.point}`);
}

/** A module's top level did not finish loading within `ms`. */
export function loadTimedOut(at: HookAt, ms: number, stopped: Stopped): HookLog {
  const how = stopped === "answers"
    ? ""
    : stopped === "killed"
    ? "; its process was killed"
    : `; ${STUCK_AT_LOAD[stopped]}`;
  return log(
    "load-timeout",
    at,
    `${named(at.hook)}: its top level did not finish within ${ms} ms${how}`,
  );
}

/** The hook host's fallback when a load fails without saying why. */
export const HOST_LOAD_FAILED = "the hook host could not load the hook";

/**
 * A module hook's load failure, named: `hook "x": [file:line:col: ]detail` (`detail` is the
 * bundler's, the permissions', or the error the hook's top level threw).
 */
export function loadFailed(
  at: HookAt,
  detail: string,
  opts: { where?: string; code?: HookErrorCode } = {},
): HookLog {
  const where = opts.where === undefined ? "" : `${opts.where}: `;
  return log(opts.code ?? "load-failed", at, `${named(at.hook)}: ${where}${detail}`);
}

/**
 * `on` names points that do not exist, or that the hook does not handle (with, for a method
 * that looks like one of those misspelt, which it is).
 */
export function onPoints(
  at: HookAt,
  unknown: string[],
  unhandled: string[],
  misspelt: MisspeltPoint[] = [],
): HookLog {
  const hint = misspeltHint(misspelt.filter((m) => unhandled.includes(m.point)));
  return log(
    "config",
    at,
    `${named(at.hook)}: ` +
      (unknown.length
        ? `on names unknown points: ${unknown.join(", ")}`
        : `on names points the hook does not handle: ${unhandled.join(", ")}${hint}`),
  );
}

/** A hook's method that looks like a point misspelt, and that point. */
export interface MisspeltPoint {
  method: string;
  point: PointName;
}

/** `did you mean session_spawn? its method "sesion_spawn" is not a lifecycle point` */
function misspeltText(m: MisspeltPoint): string {
  return `did you mean ${m.point}? its method "${m.method}" is not a lifecycle point`;
}

/** ` (did you mean …? its method "…" is not a lifecycle point; …)`, or `""` for none. */
export function misspeltHint(misspelt: MisspeltPoint[]): string {
  return misspelt.length ? ` (${misspelt.map(misspeltText).join("; ")})` : "";
}

/**
 * A module hook that implements no point (`hooks validate`): it would never be called. With
 * a method that looks like a point misspelt, that is the suggestion; else override a method.
 */
export function implementsNoPoint(misspelt: MisspeltPoint[]): string {
  const what = "implements no lifecycle point, so it would never be called";
  return misspelt.length
    ? what + misspeltHint(misspelt)
    : `${what}; override at least one LifecycleHooks method (see 'the-loop hooks points')`;
}

/**
 * A hook that implements other points but has a method that looks like one more misspelt: a
 * note of `hooks validate`, not a problem (the hook is still called at the points it has).
 */
export function misspeltNote(hook: string, m: MisspeltPoint): string {
  return `${named(hook)}: ${misspeltText(m)}, so it is never called`;
}

/** Output of a hook-host child that is not the protocol, passed on to stderr. */
export function strayOutput(hook: string, line: string): string {
  return `${named(hook)}: ${line}`;
}

/** Bundler and permission failures, before they are named by the module loader. */
export const unnamed = {
  pathNotAbsolute: (path: string): HookLog => ({
    code: "load-failed",
    message: `hook path must be absolute (got ${path})`,
  }),
  cannotRead: (path: string, why: string): HookLog => ({
    code: "load-failed",
    message: `cannot read hook file ${path}: ${why}`,
  }),
  bundle: (text: string, refused: boolean): HookLog => ({
    code: refused ? "refused-import" : "load-failed",
    message: text,
  }),
  unknownPermission: (key: string, known: readonly string[]): HookLog => ({
    code: "load-failed",
    message: `unknown permission "${key}" (known: ${known.join(", ")})`,
  }),
  permissionValue: (kind: string, value: unknown): HookLog => ({
    code: "load-failed",
    message: `permission "${kind}" must be true, false or a list of strings (got ${
      JSON.stringify(value)
    })`,
  }),
};

// ---------------------------------------------------------------------------------------------
// Remote hooks (`at.target`: the url without userinfo, query or fragment)

/** The url does not parse. */
export function invalidUrl(at: HookAt): HookLog {
  return log(
    "config",
    at,
    `${named(at.hook)}: url is not a valid absolute URL; fix the declaration`,
  );
}

/** A header name or value cannot be sent (the value is never quoted). */
export function invalidHeaders(at: HookAt): HookLog {
  return log(
    "config",
    at,
    `${named(at.hook)}: headers hold an invalid header name or value; fix the declaration`,
  );
}

/** The bearer token's variable is unset at call time. */
export function tokenUnset(at: HookAt, variable: string): HookLog {
  return log(
    "config",
    at,
    `${named(at.hook)}: environment variable ${variable} (tokenEnv) is not set; ` +
      `export it before starting the-loop`,
  );
}

/** The bearer token's variable is unset when a strict load checks it. */
export function tokenUnsetAtLoad(at: HookAt, variable: string): HookLog {
  return log(
    "config",
    at,
    `${named(at.hook)}: environment variable ${variable} (tokenEnv) is not set; export it ` +
      `before starting the-loop, or every call of this hook would fail`,
  );
}

/** The token holds characters a header cannot carry (it is never quoted). */
export function tokenUnsendable(at: HookAt, variable: string): HookLog {
  return log(
    "config",
    at,
    `${named(at.hook)}: ${variable} (tokenEnv) holds characters a header cannot carry`,
  );
}

/** No answer within the call's (or health check's) budget. */
export function remoteTimedOut(at: HookAt, ms: number): HookLog {
  return log("timeout", at, `${aimed(at)}: no answer within ${ms} ms`);
}

/** The hook was closed while the request was in flight. */
export function remoteCancelled(at: HookAt): HookLog {
  return log("closed", at, `${aimed(at)}: the call was cancelled because the hook was closed`);
}

/** The request failed below HTTP. */
export function unreachable(at: HookAt, why: string): HookLog {
  return log(
    "transport",
    at,
    `${aimed(at)}: could not reach the endpoint (${why}); is the hook server running?`,
  );
}

/** A 3xx, not followed; `origin` is where it pointed (never its path or query). */
export function redirected(at: HookAt, status: number, origin: string): HookLog {
  return log(
    "http-status",
    at,
    `${aimed(at)}: the endpoint answered HTTP ${status}, redirecting to ${origin}; redirects ` +
      `are not followed (they would re-send the context and credentials elsewhere): set url: ` +
      `to the address that answers`,
  );
}

/** The response body passed its cap and was not read further. */
export function bodyTooLarge(at: HookAt, max: number): HookLog {
  return log(
    "over-cap",
    at,
    `${aimed(at)}: the response body is larger than ${max} bytes; a hook answers with a ` +
      `small JSON-RPC object`,
  );
}

/** A call answered a non-2xx status; `snippet` is the start of its body. */
export function httpStatus(at: HookAt, status: number, snippet: string): HookLog {
  return log(
    "http-status",
    at,
    `${aimed(at)}: the endpoint answered HTTP ${status}: ${snippet || "(empty body)"}`,
  );
}

/** The health check's last status was not a 2xx. */
export function healthStatus(at: HookAt, status: number): HookLog {
  return log(
    "http-status",
    at,
    `${aimed(at)}: health check answered HTTP ${status}; is the hook server up?`,
  );
}

/** The JSON-RPC response was refused (`detail` from {@linkcode rpc}). */
export function rpcRefused(at: HookAt, refusal: { code: HookErrorCode; detail: string }): HookLog {
  return log(refusal.code, at, `${aimed(at)}: ${refusal.detail}`);
}

/** Why a JSON-RPC response is refused. */
export const rpc = {
  notJson: "the response body is not JSON",
  notJsonRpc: 'the response is not JSON-RPC 2.0 (no "jsonrpc": "2.0" object)',
  otherRequest: (got: unknown, expected: number) =>
    `the response answers a different request (id ${JSON.stringify(got)}, expected ${expected})`,
  error: (code: number | undefined, message: string) =>
    `the hook answered an error${code === undefined ? "" : ` (code ${code})`}: ${message}`,
  noErrorMessage: "(no message)",
  neither: 'the response is not JSON-RPC 2.0 (neither "result" nor "error")',
  badResult: (what: string) => `the result must be null or an object of decisions (got ${what})`,
  cut: (message: string, max: number) =>
    `${message.slice(0, max)}… (${message.length - max} more characters cut)`,
};

// ---------------------------------------------------------------------------------------------
// Command hooks (`at.target`: `argv[0]` as declared)

/** The declaration's command is empty. */
export function emptyCommand(at: HookAt): HookLog {
  return log("config", at, `${named(at.hook)}: command is empty; give the program to run`);
}

/** The hook was closed before this call. */
export function commandClosed(at: HookAt): HookLog {
  return log("closed", at, `${named(at.hook)}: the hook was closed`);
}

/** A program path that cannot be run; `relativeTo` when it was resolved against the config dir. */
export function notRunnable(
  at: HookAt,
  path: string,
  why: string,
  relative?: { argv0: string; cwd: string },
): HookLog {
  const note = relative === undefined
    ? ""
    : ` (${relative.argv0} is resolved against ${relative.cwd}, the config file's directory)`;
  return log("not-runnable", at, `${named(at.hook)}: command ${path} ${why}${note}`);
}

/** A bare program name found nowhere on PATH. */
export function notOnPath(at: HookAt, argv0: string, path: string): HookLog {
  return log(
    "not-runnable",
    at,
    `${named(at.hook)}: command ${argv0} was not found on PATH (${path}); give its full path ` +
      `or a path relative to the config file`,
  );
}

/** The program could not be spawned. */
export function spawnFailed(at: HookAt, program: string, why: string): HookLog {
  return log("spawn-failed", at, `${aimed(at)}: could not start ${program}: ${why}`, {});
}

/**
 * The command ran out of time and its group was killed; `leaderCode` when the program itself
 * had exited but a background process held its output open.
 */
export function commandTimedOut(
  at: HookAt,
  ms: number,
  leaderCode: number | undefined,
  telemetry: Telemetry,
): HookLog {
  const held = leaderCode === undefined
    ? ""
    : ` It exited (code ${leaderCode}) but a background process kept its stdout or stderr ` +
      `open; redirect background output (e.g. \`cmd >/dev/null 2>&1 &\`).`;
  return log(
    "timeout",
    at,
    `${aimed(at)}: no result within ${ms} ms; its process group was killed.${held}`,
    telemetry,
  );
}

/** A finished run that is a failure (`detail` from {@linkcode run}). */
export function commandFailed(
  at: HookAt,
  failure: { code: HookErrorCode; detail: string },
  telemetry: Telemetry,
): HookLog {
  return log(failure.code, at, `${aimed(at)}: ${failure.detail}`, telemetry);
}

/** Why a finished command run is a failure. */
export const run = {
  exited: (signal: string | null, code: number, stderrTail: string) =>
    `${
      signal !== null ? `was killed by ${signal} (exit code ${code})` : `exited with code ${code}`
    }${stderrTail ? `: ${stderrTail}` : " (stderr was empty)"}`,
  overAnswerCap: (answerMax: number) =>
    `stdout is longer than ${answerMax} bytes, the cap on a hook's whole answer, and was cut ` +
    `there, so it is not valid JSON; print only the decisions, each within its own cap`,
  truncated: (max: number) =>
    `stdout is longer than maxOutputBytes (${max}) and was truncated, so it is not valid ` +
    `JSON; print less or raise maxOutputBytes`,
  notJson: "stdout is not a JSON object (it is not JSON); print nothing to pass or one JSON object",
  notObject: (what: string) =>
    `stdout is not a JSON object (got ${what}); print nothing to pass or one JSON object`,
};

/** A refusal's reason when the hook gave none (a command's empty stderr on exit 2). */
export function refusedBy(hook: string): string {
  return `refused by ${named(hook)}`;
}

// ---------------------------------------------------------------------------------------------
// The runner

/** The sentence a leaked timeout adds, in the event and the warning, by what the thread does. */
export function leakedNote(stuck: Stuck | undefined): string {
  switch (stuck) {
    case "spinning":
      return "its worker thread busy-loops and could not be stopped: it keeps a CPU core busy " +
        "until the-loop restarts; the hook is disabled until then";
    case "blocked":
      return "its worker thread is blocked (e.g. Atomics.wait) and could not be stopped: it " +
        "holds no CPU, but the thread and its memory stay until the-loop restarts; the hook " +
        "is disabled until then";
    default:
      return "its worker thread could not be stopped and may keep a CPU core busy until " +
        "the-loop restarts; the hook is disabled until then";
  }
}

/** An executor resolved with something that is not a result. */
export function notAResult(result: unknown): string {
  return `the executor returned ${String(result)} instead of a result`;
}

/** A command exited 2 at a point that has no `proceed` decision. */
export function refusedWithoutProceed(point: PointName, reason: string): string {
  return `it exited 2 to refuse, but ${point} has no proceed decision to refuse; treated as a ` +
    `failure (its reason: ${reason})`;
}

/** The reason a required hook's failure refuses the operation with: the error's first line. */
export function requiredFailed(hook: string, error: string): string {
  return `required ${named(hook)} failed: ${withoutName(error, hook).split("\n")[0]}`;
}

/** The reason a required hook's skipped call refuses the operation with. */
export function requiredUnavailable(hook: string, failures: number, retryAt?: string): string {
  return `required ${unavailable(hook, failures, retryAt)}`;
}

/** Why a hook was not called: its circuit is open (a suspend hook's failure says so). */
export function unavailable(hook: string, failures: number, retryAt?: string): string {
  const retry = retryAt !== undefined ? ` until ${retryAt}` : "";
  return `${named(hook)} is unavailable: its circuit is open after ${failures} ` +
    `failure${failures === 1 ? "" : "s"} in a row, so its calls are skipped${retry}`;
}

/** The runner's warnings about one call of `hook` at `point`. */
export const warn = {
  unexpected: (hook: string, point: PointName, error: string) =>
    `hooks: unexpected error running ${named(hook)} at ${point}: ${error}; the context is used ` +
    `as it stands`,
  timedOut: (hook: string, point: PointName, ms: number, leaked?: { stuck?: Stuck }) =>
    `${named(hook)} at ${point} timed out after ${ms} ms${
      leaked ? `: ${leakedNote(leaked.stuck)}` : ""
    }; its answer is ignored`,
  failed: (hook: string, point: PointName, error: string) =>
    `${named(hook)} at ${point} failed: ${error}; its answer is ignored`,
  requiredRefuses: (hook: string, point: PointName) =>
    `${named(hook)} at ${point} is required, so the operation is refused`,
  skippedRequired: (hook: string, point: PointName) =>
    `${named(hook)} at ${point} was not called: its circuit is open; it is required, so the ` +
    `operation is refused`,
  retrying: (hook: string, point: PointName, attempt: number, ms: number) =>
    `${named(hook)} at ${point} failed (attempt ${attempt}); it is onError: suspend with ` +
    `retry_backoff, so it is called again in ${ms} ms`,
  suspended: (hook: string, point: PointName, mode: string, attempts: number) =>
    `${named(hook)} at ${point} failed${
      attempts > 1 ? ` ${attempts} times` : ""
    }; it is onError: suspend, so the operation is suspended (${mode}) until it is resumed`,
  rerunRefuses: (hook: string, point: PointName) =>
    `${named(hook)} at ${point} failed again when called after the resume, so the operation ` +
    `is refused`,
  resumeMissing: (hook: string, point: PointName) =>
    `hooks: resuming ${point} after ${named(hook)}, which is no longer in the chain (a reload ` +
    `removed it); every hook at ${point} runs`,
  overturnBlocked: (hook: string, point: PointName) =>
    `${named(hook)} at ${point} tried to overturn an earlier hook's refusal; the refusal stands`,
};

/** The circuits' warnings about `hook`. */
export const circuit = {
  opened: (
    hook: string,
    o: { failures: number; last: string; retryAt: string; required: boolean },
  ) =>
    `${
      named(hook)
    }: its circuit is open after ${o.failures} failures in a row (last: ${o.last}); ` +
    `its calls are skipped until ${o.retryAt}, then one probe call is let through${
      o.required ? "; it is required, so the operations it decides are refused" : ""
    }; ${resetHint(hook)}`,
  probeFailed: (hook: string, o: { last: string; retryAt: string }) =>
    `${named(hook)}: its probe call failed (${o.last}); its circuit stays open until ` +
    `${o.retryAt}; ${resetHint(hook)}`,
  closed: (hook: string, after: string) =>
    `${named(hook)}: its circuit is closed again (${after}); calls go through`,
  notRecorded: (hook: string, why: string) =>
    `hooks: could not record ${named(hook)}'s circuit: ${why}; 'the-loop hooks' will not show it`,
};

function resetHint(hook: string): string {
  return `'the-loop hooks reset ${hook}' re-arms it sooner`;
}

// ---------------------------------------------------------------------------------------------
// Loading and the process-wide seam

/** A message about `hook` that does not name it yet (a loader problem): `hook "x": message`. */
export function aboutHook(hook: string, message: string): string {
  return `${named(hook)}: ${message}`;
}

/** The engine's texts. */
export const engine = {
  runningWithout: (error: string) => `hooks: running without hooks: ${error}`,
  unexpected: (point: PointName, error: string) => `hooks: unexpected error at ${point}: ${error}`,
};
