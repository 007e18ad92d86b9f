/**
 * Test doubles behind the Executor seam (the runner's whole contract), and entry builders.
 * Used by the runner's and the engine's tests only.
 *
 * @module
 */
import type { CallOptions, CallResult, Executor, ExecutorKind } from "./executor.ts";
import type { Entry, OnError, SuspendMode } from "./declaration/mod.ts";
import type { PointName } from "./sdk/points.ts";
import { makeContext } from "./sdk/contract.ts";

/** One recorded call. */
export interface SeenCall {
  point: PointName;
  params: Record<string, unknown>;
  opts: CallOptions;
}

/** A fake executor answering with `answer(point, params)`; records its calls. */
export function fakeExecutor(
  name: string,
  answer: (point: PointName, params: Record<string, unknown>) => CallResult | Promise<CallResult>,
  opts: { kind?: ExecutorKind; on?: PointName[] } = {},
): Executor & { calls: SeenCall[]; closed: number } {
  const ex = {
    name,
    kind: opts.kind ?? "module",
    calls: [] as SeenCall[],
    closed: 0,
    handles: (p: PointName) => opts.on === undefined || opts.on.includes(p),
    call(point: PointName, params: Record<string, unknown>, o: CallOptions) {
      ex.calls.push({ point, params, opts: o });
      return Promise.resolve().then(() => answer(point, params));
    },
    close() {
      ex.closed++;
      return Promise.resolve();
    },
  };
  return ex;
}

/** A declared entry of `kind` (a command by default), without touching a file. */
export function entryOf(
  name: string,
  opts: {
    kind?: ExecutorKind;
    required?: boolean;
    enabled?: boolean;
    timeoutSeconds?: number;
    onError?: OnError;
    suspendMode?: SuspendMode;
    retryBackoffMs?: number[];
  } = {},
): Entry {
  const onError = opts.onError ?? (opts.required ? "block" : "warn");
  const common = {
    name,
    target: name,
    timeoutSeconds: opts.timeoutSeconds ?? 5,
    onError,
    required: onError === "block",
    ...(onError === "suspend" ? { suspendMode: opts.suspendMode ?? "wait_for_resume" } : {}),
    ...(opts.suspendMode === "retry_backoff"
      ? { retryBackoffMs: opts.retryBackoffMs ?? [100, 200, 400] }
      : {}),
    enabled: opts.enabled ?? true,
    index: 0,
  };
  switch (opts.kind ?? "command") {
    case "module":
      return {
        ...common,
        kind: "module",
        path: `/hooks/${name}.ts`,
        baseDir: "/hooks",
        permissions: {},
        isolation: "worker",
        maxMemoryMb: 128,
      };
    case "remote":
      return { ...common, kind: "remote", url: "https://h.example/", headers: {} };
    default:
      return { ...common, kind: "command", argv: [name], cwd: "/", env: [], maxOutputBytes: 65536 };
  }
}

/** A work_item_start context for github:acme/app#42. */
export function startCtx() {
  return makeContext("work_item_start", {
    work_item: "github:acme/app#42" as never,
    loop: "pdlc",
    command: "start",
    actor: "mallory",
    harness: "claude",
    instance: "",
  });
}

/** A phase_changed context (a point without proceed). */
export function phaseCtx() {
  return makeContext("phase_changed", {
    work_item: "github:acme/app#42" as never,
    loop: "pdlc",
    from_node: "",
    to_node: "design",
    from_phase: "",
    to_phase: "design",
    outcome: "",
    actor: "agent",
    terminal: false,
  });
}
