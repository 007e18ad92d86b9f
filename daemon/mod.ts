/**
 * What both daemons (`poll start`, `gh-webhook start`) share: one instance per pidfile by an OS
 * file lock, `stop` by signal and wait, and hot reload of the config.
 *
 * @module
 */
export { DaemonLock, LockHeldError, type LockHolder, lockHolder } from "./lock.ts";
export { describeStop, stopDaemon, type StopOptions, type StopResult } from "./stop.ts";
export { ConfigReloader, type ConfigReloaderOptions } from "./reload.ts";
export {
  DEGRADED_EVERY_MS,
  type FailureInfo,
  type FailureKind,
  failureKindOf,
  failureLine,
  FAILURES,
  type LastError,
  longRateWait,
  type RateLimitWait,
  SAY_RATE_WAIT_MS,
  Trouble,
  type TroubleOptions,
  WARN_EVERY_MS,
} from "./trouble.ts";
