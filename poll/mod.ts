/**
 * The poller (`the-loop poll`): pull-based ingress for hosts a webhook cannot reach. Each cycle
 * lists every source's open labelled issues and pull requests (one conditional request per repo),
 * reads the threads of the items that changed, hands new comments, reviews and inline comments to
 * the router shaped as the webhook would deliver them, nudges armed items without a session
 * (presence), and closes the sessions of items that closed. The ledger makes it crash-safe. See
 * `docs/poll.md`.
 *
 * `startPoller` runs it as a daemon in this process (lock, event log, status file, hot reload):
 *
 * ```ts
 * const poller = startPoller({ loaded, env, cwd, warn: console.error, once: true });
 * await poller.ready;
 * const { cycles, failed } = await poller.stopped;
 * ```
 *
 * Or piece by piece:
 *
 * ```ts
 * const ledger = await Ledger.load(config.polling.stateFile);
 * const poller = new Poller({ gh, sink: router, ledger, sessions, control, events, parseControl });
 * await runLoop({ poller, settings: async () => settingsFromConfig(await reloader.check()), once, signal });
 * ```
 *
 * @module
 */
export {
  type ControlParser,
  type ControlView,
  type CycleCounts,
  type CycleFailure,
  type CycleReport,
  type Handover,
  Poller,
  type PollerOptions,
  type RequestStats,
} from "./poller.ts";
export {
  type ItemRecord,
  Ledger,
  LEDGER_VERSION,
  type LedgerData,
  LedgerError,
  type SpawnRecord,
} from "./ledger.ts";
export {
  apiHostOf,
  pollingProblems,
  type PollSettings,
  settingsFromConfig,
  type SourceSettings,
} from "./settings.ts";
export {
  isForwardableReview,
  mergeThread,
  type PollGitHub,
  readThread,
  sinceParam,
} from "./thread.ts";
export { commentDeliveryId, type ThreadEntry } from "./payloads.ts";
export { ControlDirView } from "./control_view.ts";
export {
  type LastCycle,
  lastCycleOf,
  type PollStatus,
  type RateLimitWait,
  readStatus,
  STATUS_FILE,
  StatusKeeper,
  statusPath,
  writeStatus,
} from "./status.ts";
export { type LoopOptions, runLoop } from "./loop.ts";
export {
  GITHUB_GRACE_MS,
  type PollerDaemonOptions,
  type PollerReady,
  type PollerStopped,
  startPoller,
} from "./start.ts";
export { type DryCycle, dryCycle, type DryCycleOptions, type DryHandover } from "./dry_run.ts";
