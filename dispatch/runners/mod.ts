/**
 * The runners that host harness sessions: {@linkcode ProcessRunner} (`routing.runner: process`,
 * one headless subprocess per prompt, output in `<logDir>/<slug>.log`) and
 * {@linkcode TmuxRunner} (`routing.runner: tmux`, an interactive harness in tmux session
 * `loop-<slug>` a human can attach to). Neither emits events: they return, throw, or report a
 * failed resume through `TmuxRunner`'s callback, and the dispatcher logs them. Neither launches a
 * harness but on `spawn`: a delivery to one that is not running answers `false`, and the
 * dispatcher relaunches it after `session_spawn`.
 *
 * @module
 */
export { ProcessRunner, type ProcessRunnerOptions } from "./process.ts";
export { type ResumeFailure, TmuxRunner, type TmuxRunnerOptions, tmuxSessionName } from "./tmux.ts";
export {
  allowlisted,
  HARNESS_ENV_ALLOWLIST,
  harnessEnvironment,
  WEBHOOK_SECRET_ENV,
} from "./harness_env.ts";
export {
  controlLine,
  controlSequence,
  GUARDED_PASTE_ANSWERS,
  guardedPaste,
  type GuardedPasteOptions,
  PANE_DEAD,
  paneOf,
  quoteWord,
  saidDead,
} from "./tmux_words.ts";
export { boundedRun, type BoundedRunOptions, type BoundedRunResult } from "./bounded_run.ts";
