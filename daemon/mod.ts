/**
 * What both daemons (`poll start`, `gh-webhook start`) share: one instance per pidfile by an OS
 * file lock (taken, or refused naming the holder), their event log, `stop` by signal and wait, the
 * handle of a daemon started in-process (`Running`: ready, stopped, stop()), and the generic
 * watcher of the config file that hot reload is built on (`ingress/reload.ts` wires it to the
 * routing stack), and the control endpoint: its Unix socket, its client, and the session key the
 * sessions' capabilities are made from.
 *
 * @module
 */
export { DaemonLock, LockHeldError, type LockHolder, lockHolder } from "./lock.ts";
export { describeStop, stopDaemon, type StopOptions, type StopResult } from "./stop.ts";
export { type LockOptions, lockOrRefuse, openDaemonLog, watchedSink } from "./open.ts";
export { type DaemonBody, runDaemon, type Running } from "./running.ts";
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
export {
  checkSocketPath,
  CONTROL_SOCKETS,
  type ControlResponse,
  type ControlServer,
  type ControlServerOptions,
  controlSocketPath,
  type DaemonName,
  MAX_REQUEST_BYTES,
  MAX_SOCKET_PATH_BYTES,
  serveControl,
} from "./control_socket.ts";
export { CALL_TIMEOUT_MS, callControl, NotRunningError } from "./control_client.ts";
export {
  capabilityFor,
  ensureSessionKey,
  SESSION_KEY_BYTES,
  SESSION_KEY_FILE,
  sessionKeyPath,
  verifyCapability,
} from "./session_key.ts";
