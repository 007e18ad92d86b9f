/**
 * Reads a child's output stream to its end while keeping only the first `max` bytes, so a
 * chatty hook is never blocked on a full pipe and never fills our memory.
 *
 * @module
 */

/** What one stream produced, capped. */
export interface Captured {
  /** The first `max` bytes. */
  bytes: Uint8Array;
  /** More than `max` bytes arrived. */
  truncated: boolean;
}

/** A stream being drained. */
export interface Capture {
  /** Settles when the stream ends (or is cancelled); never rejects. */
  readonly done: Promise<void>;
  /** What was kept so far. */
  result(): Captured;
  /** Stops reading and releases the stream (after a timeout). */
  cancel(): Promise<void>;
}

/** Starts draining `stream`, keeping at most `max` bytes. */
export function capture(stream: ReadableStream<Uint8Array>, max: number): Capture {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const room = max - kept;
        if (value.length > room) truncated = true;
        if (room > 0) {
          const take = value.length > room ? value.slice(0, room) : value;
          chunks.push(take);
          kept += take.length;
        }
      }
    } catch {
      // The stream was cancelled or broke; what was kept stands.
    }
  })();
  return {
    done,
    result() {
      const bytes = new Uint8Array(kept);
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.length;
      }
      return { bytes, truncated };
    },
    async cancel() {
      await reader.cancel().catch(() => {});
      await done;
    },
  };
}
