/**
 * `GET /api/v1/events`: the event log as server-sent events. Each record is one event
 * (`event: record`, `data:` its JSON line) whose `id` is the byte offset just past its line, so a
 * client that reconnects with `Last-Event-ID` (the browser's `EventSource` does it by itself)
 * goes on after the last record it had. Without one, `?from=N` starts at offset N, else the
 * stream starts at the log's end (only what comes next). A comment (`: keep-alive`) goes out
 * every `keepAliveMs` so proxies and the client see the connection alive. At most `max`
 * subscribers at once: one more is answered 503 with `Retry-After`.
 *
 * @module
 */
import { every } from "../async/mod.ts";
import { followLines } from "./_log.ts";

/** Options of {@linkcode EventStreams}. */
export interface EventStreamsOptions {
  path: string;
  max: number;
  keepAliveMs: number;
  pollMs: number;
}

const encoder = new TextEncoder();

/** Where a request asks to start: `Last-Event-ID`, else `?from=`; null when neither (or bad). */
export function startOf(req: Request): number | null {
  const given = req.headers.get("last-event-id") ?? new URL(req.url).searchParams.get("from");
  return given !== null && /^\d{1,15}$/.test(given.trim()) ? Number(given) : null;
}

/** The open streams of one server. */
export class EventStreams {
  readonly #o: EventStreamsOptions;
  readonly #open = new Set<AbortController>();

  constructor(o: EventStreamsOptions) {
    this.#o = o;
  }

  /** How many subscribers are connected. */
  get size(): number {
    return this.#open.size;
  }

  /** The stream's response (or the 503 of a full house). */
  async open(req: Request): Promise<Response> {
    if (this.#open.size >= this.#o.max) {
      return new Response(`too many subscribers (at most ${this.#o.max}); try again later\n`, {
        status: 503,
        headers: { "retry-after": "5", "content-type": "text/plain; charset=utf-8" },
      });
    }
    let start = startOf(req);
    if (start === null) {
      start = await Deno.stat(this.#o.path).then((s) => s.size, () => 0);
    }
    const stop = new AbortController();
    this.#open.add(stop);
    // the client's going away cancels the body (below), which ends it
    const { path, pollMs, keepAliveMs } = this.#o;
    const open = this.#open;
    let cancelTick = () => {};
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            stop.abort(); // closed under us
          }
        };
        send(`retry: 2000\n: connected at offset ${start}\n\n`);
        cancelTick = every(() => send(": keep-alive\n\n"), keepAliveMs, { persistent: false });
        try {
          for await (
            const { line, offset } of followLines({
              path,
              start: start!,
              signal: stop.signal,
              pollMs,
            })
          ) send(`id: ${offset}\nevent: record\ndata: ${line}\n\n`);
        } catch (error) {
          send(`event: error\ndata: ${JSON.stringify(String(error))}\n\n`);
        } finally {
          cancelTick();
          open.delete(stop);
          try {
            controller.close();
          } catch { /* cancelled already */ }
        }
      },
      cancel() {
        stop.abort();
        cancelTick();
        open.delete(stop);
      },
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }

  /** Ends every stream (the server is closing). */
  closeAll(): void {
    for (const stop of this.#open) stop.abort();
    this.#open.clear();
  }
}
