/**
 * The dispatcher's face: the seam (the types the router hands over and gets back), the
 * control-keyword parser, the {@linkcode SessionDispatcher} (sessions, harnesses, tmux, workspaces,
 * the lifecycle call sites) and {@linkcode openDispatch} that builds it from a config, the
 * dry-run dispatcher, the session store and control actions, and {@linkcode JournalDispatcher}
 * (the watch-only `routing.dispatcher: journal`).
 *
 * @module
 */
export {
  type CiFacts,
  type DeliveredDetail,
  type Dispatcher,
  type DispatchFailure,
  type DispatchOutcome,
  type FailureCause,
  type FailureStage,
  type ItemFacts,
  reasonOf,
  type RoutedEvent,
  type RoutedKind,
  SETTLED_REASONS,
  type SettledReason,
  type Subject,
  type VerbName,
  type VerbRequest,
  type VerbResult,
  type Via,
} from "./types.ts";
export { parseControl, type ParsedControl } from "./keywords.ts";
export {
  JOURNAL_FILE,
  JournalDispatcher,
  type JournalDispatcherOptions,
  type JournalEntry,
  journalEntry,
  readJournal,
} from "./journal.ts";
export * from "./sessions/mod.ts";
export * from "./suspensions/mod.ts";
export { discardedEvents } from "./turn/mod.ts";
export { SessionDispatcher } from "./dispatcher.ts";
export type {
  DispatchControlStore,
  DispatchGitHub,
  DispatchHooks,
  DispatchRunner,
  DispatchSessions,
  SessionDispatcherOptions,
  StartMarks,
} from "./seams.ts";
export {
  allowlisted as harnessEnvAllowlisted,
  boundedRun,
  type BoundedRunOptions,
  type BoundedRunResult,
  HARNESS_ENV_ALLOWLIST,
  harnessEnvironment,
  WEBHOOK_SECRET_ENV,
} from "./runners/mod.ts";
// the words of tmux commands that type into a pane (the tmux runner's, the web terminal's)
export {
  controlSequence as tmuxControlSequence,
  GUARDED_PASTE_ANSWERS as TMUX_GUARDED_PASTE_ANSWERS,
  guardedPaste as tmuxGuardedPaste,
  paneOf as tmuxPaneOf,
  saidDead as tmuxPasteSaidDead,
} from "./runners/mod.ts";
export { adapterFor } from "./harness/mod.ts";
export type {
  ApprovalMode,
  HarnessAdapter,
  HarnessName,
  HarnessSettings,
  HarnessUsage,
} from "./seams.ts";
export { HARNESS_NAMES } from "./seams.ts";
export { DryRunDispatcher, type DryRunDispatcherOptions, type DryRunRecord } from "./dry_run.ts";
export {
  defaultTemplates,
  loadTemplates,
  parseTemplate,
  type Placeholder,
  PLACEHOLDERS,
  type PromptTemplate,
  type PromptTemplates,
  type PromptValues,
  renderPrompt,
  type TemplatePaths,
} from "./prompts.ts";
export {
  type DispatchStack,
  loopsOfConfig,
  openDispatch,
  type OpenDispatchOptions,
  openDryRun,
  type OpenDryRunOptions,
  remoteOf,
} from "./open.ts";
export {
  LAUNCHER_DIR,
  LAUNCHER_NAME,
  type LauncherOptions,
  launcherScript,
  sessionEnvFor,
  type SessionEnvOptions,
  shellQuote,
  writeLauncher,
} from "./agent_env.ts";
