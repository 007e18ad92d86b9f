/**
 * The runners that host harness sessions: {@linkcode ProcessRunner} (`routing.runner: process`,
 * one headless subprocess per prompt, output in `<logDir>/<slug>.log`) and
 * {@linkcode TmuxRunner} (`routing.runner: tmux`, an interactive harness in tmux session
 * `loop-<slug>` a human can attach to). Neither emits events: they return, throw, or report a
 * respawn or a failed resume through `TmuxRunner`'s callbacks, and the dispatcher logs them.
 *
 * @module
 */
export { ProcessRunner, type ProcessRunnerOptions } from "./process.ts";
export { type ResumeFailure, TmuxRunner, type TmuxRunnerOptions, tmuxSessionName } from "./tmux.ts";
export {
  allowlisted,
  HARNESS_ENV_ALLOWLIST,
  type HarnessEnvConfig,
  harnessEnvironment,
  type HarnessEnvironmentOptions,
  WEBHOOK_SECRET_ENV,
} from "./harness_env.ts";
