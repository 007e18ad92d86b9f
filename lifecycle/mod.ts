/**
 * The hook engine's face: everything outside `lifecycle/` (commands, daemons, tests, bench)
 * reaches the engine through this file, and hook authors' types through `./sdk/mod.ts`.
 *
 * - The process-wide seam: {@linkcode configureFromConfig}, {@linkcode run}, {@linkcode reset}
 *   (a daemon configures strictly and refuses to start on a bad declaration; a call site builds
 *   a context, calls `run`, applies the answer; `run` never throws).
 * - The {@linkcode Runner}: a chain of hooks, every call wrapped, timed and attributed.
 * - Reading a declaration ({@linkcode parseDeclaration}) and loading its executors
 *   ({@linkcode loadExecutors}); each kind's executor for tools that load one hook alone.
 * - Parked operations: {@linkcode suspensionOf} says a suspend hook's failure stopped a chain;
 *   `run(point, ctx, { resume })` goes on with it.
 * - Circuits ({@linkcode FileCircuitStore}) and secrets ({@linkcode secretsOf}).
 * - Hook failures: {@linkcode HookError} and its classes carry `hook`, `point`, `kind` and a
 *   {@linkcode HookErrorCode}; their messages are all written in one place (`_messages.ts`).
 *
 * ```ts
 * import * as engine from "./lifecycle/mod.ts";
 * await engine.configureFromConfig(loaded, { strict: true });
 * const ctx = await engine.run("work_item_start", makeContext("work_item_start", facts));
 * ```
 *
 * @module
 */
export {
  configure,
  configured,
  configureFromConfig,
  configureLazily,
  type ConfigureOptions,
  handles,
  redactSecrets,
  reset,
  run,
} from "./engine.ts";
export {
  refuserOf,
  Runner,
  type RunnerEntry,
  type RunnerOptions,
  type RunOptions,
} from "./runner.ts";
export { type ResumeFrom, type SuspendMode, type Suspension, suspensionOf } from "./suspension.ts";
export {
  entryProblem,
  type LoadedExecutors,
  loadExecutors,
  type LoadExecutorsOptions,
} from "./loader.ts";
export {
  type CallOptions,
  type CallResult,
  DEFAULT_LOAD_TIMEOUT_MS,
  type Executor,
  type ExecutorKind,
  type ExecutorStatus,
  HookError,
  type HookErrorCode,
  type HookErrorOptions,
  HookFailure,
  HookLoadError,
  type HookLog,
  HookTimeout,
  type HookTimeoutOptions,
  type Stuck,
  type Telemetry,
} from "./executor.ts";
export { misspeltHintFor, misspeltNotes, misspeltPoints, noPointProblem } from "./misspelt.ts";
export {
  type CommandEntry,
  type Declaration,
  DEFAULT_RETRY_BACKOFF_MS,
  describeDeclaration,
  type Entry,
  MAX_TIMEOUT_SECONDS,
  type ModuleEntry,
  type OnError,
  parseDeclaration,
  type ParseDeclarationOptions,
  type RemoteEntry,
  timeoutMs,
} from "./declaration/mod.ts";
export {
  bundleHook,
  type CommandExecutor,
  type CommandExecutorOptions,
  createCommandExecutor,
  createRemoteExecutor,
  type HookBundle,
  loadModuleHook,
  type ModuleHookOptions,
  type RemoteExecutor,
  type RemoteExecutorOptions,
  runHookHost,
  stopBundler,
} from "./executors/mod.ts";
export { isDenoCli, taskFlags } from "./run_self.ts";
export {
  type CircuitRecord,
  circuitsDir,
  type CircuitStore,
  FileCircuitStore,
  processRunning,
} from "./circuit_store.ts";
export { CIRCUIT_POLICY, type CircuitPolicy } from "./circuit.ts";
export { type EnvReader, redact, redactor, secretsOf } from "./secrets.ts";
export { SDK_ENTRY, SDK_SOURCES } from "./sdk/sources.ts";
