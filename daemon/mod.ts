/**
 * What both daemons (`poll start`, `gh-webhook start`) share: one instance per pidfile by an OS
 * file lock, `stop` by signal and wait, and hot reload of the config.
 *
 * @module
 */
export { DaemonLock, LockHeldError, type LockHolder, lockHolder } from "./lock.ts";
export { describeStop, stopDaemon, type StopOptions, type StopResult } from "./stop.ts";
export { ConfigReloader, type ConfigReloaderOptions } from "./reload.ts";
