/**
 * A daemon started in-process: {@linkcode Running} is what `startPoller` and `startReceiver`
 * return — `ready` (what the caller prints once it runs), `stopped` (once it has let go of
 * everything, with why it stopped) and `stop()` (begins a graceful stop). {@linkcode runDaemon}
 * builds one around the daemon's body:
 *
 * | the body …                     | `ready`                 | `stopped`               |
 * | ------------------------------ | ----------------------- | ----------------------- |
 * | calls `ready(value)`, returns  | resolves with `value`   | resolves with the value |
 * | throws before `ready(…)`       | rejects with the error  | rejects with the error  |
 * | throws after `ready(…)`        | (resolved)              | rejects with the error  |
 * | returns without `ready(…)`     | rejects (never ready)   | resolves with the value |
 *
 * Neither promise is an unhandled rejection when the caller awaits only one of them. `stop()`,
 * or the `signal` given, aborts the body's `stopping` signal; the body decides what a graceful
 * stop is (the poller finishes its item in flight, the receiver drains its requests).
 *
 * ```ts
 * const daemon = startPoller({ loaded, env, cwd, warn });
 * console.log(await daemon.ready); // the ready line's figures
 * Deno.addSignalListener("SIGTERM", () => daemon.stop());
 * const { reason } = await daemon.stopped;
 * ```
 *
 * @module
 */

/** A daemon running in this process. */
export interface Running<Ready, Stopped> {
  /** Resolves once it runs (with what a caller prints); rejects when it could not start. */
  readonly ready: Promise<Ready>;
  /** Resolves once it fully stopped, with why; rejects when it failed. */
  readonly stopped: Promise<Stopped>;
  /** Begins a graceful stop (again: nothing more); returns {@linkcode stopped}. */
  stop(): Promise<Stopped>;
}

/** What the body of {@linkcode runDaemon} is handed. */
export interface DaemonBody<Ready> {
  /** Says the daemon runs (once; later calls are ignored). */
  ready(value: Ready): void;
  /** Aborted by `stop()` or the caller's signal. */
  stopping: AbortSignal;
}

/** Runs `body` as a daemon: see the table in the module doc. */
export function runDaemon<Ready, Stopped>(
  body: (daemon: DaemonBody<Ready>) => Promise<Stopped>,
  opts: { signal?: AbortSignal } = {},
): Running<Ready, Stopped> {
  const stopping = new AbortController();
  let said: ((value: Ready) => void) | undefined;
  let failed!: (error: unknown) => void;
  const ready = new Promise<Ready>((resolve, reject) => {
    said = resolve;
    failed = reject;
  });
  const stop = () => stopping.abort();
  if (opts.signal?.aborted) stop();
  opts.signal?.addEventListener("abort", stop, { once: true });
  const stopped = (async () => {
    try {
      return await body({
        ready: (value) => {
          said?.(value);
          said = undefined;
        },
        stopping: stopping.signal,
      });
    } catch (error) {
      failed(error);
      throw error;
    } finally {
      opts.signal?.removeEventListener("abort", stop);
      failed(new Error("the daemon stopped before it was ready"));
    }
  })();
  ready.catch(() => {});
  stopped.catch(() => {});
  return {
    ready,
    stopped,
    stop() {
      stop();
      return stopped;
    },
  };
}
