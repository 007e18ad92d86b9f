/**
 * The HTTP server around the handler: `Deno.serve` on a host and port (`0`: a free one, which
 * {@linkcode WebhookServer.addr} then names), and a bounded graceful shutdown — new connections
 * are refused at once, requests in progress get `graceMs` to finish, then the server is left
 * to the process's exit.
 *
 * @module
 */

/** Options of {@linkcode WebhookServer.start}. */
export interface WebhookServerOptions {
  hostname: string;
  port: number;
  handler: (req: Request) => Promise<Response>;
}

/** A listening receiver. */
export class WebhookServer {
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #stopping?: Promise<boolean>;

  private constructor(server: Deno.HttpServer<Deno.NetAddr>) {
    this.#server = server;
  }

  /** Starts listening; throws when the address cannot be bound. */
  static start(opts: WebhookServerOptions): WebhookServer {
    const server = Deno.serve({
      hostname: opts.hostname,
      port: opts.port,
      onListen: () => {},
      // the handler answers every error itself; this only covers a bug in that
      onError: () => new Response('{"status":"error"}', { status: 500 }),
    }, opts.handler);
    return new WebhookServer(server);
  }

  /** The bound address (the real port when 0 was asked for). */
  get addr(): Deno.NetAddr {
    return this.#server.addr;
  }

  /**
   * Stops accepting and waits up to `graceMs` for requests in progress; resolves `true` when
   * they all finished, `false` when some were still running at the deadline.
   */
  shutdown(opts: { graceMs: number }): Promise<boolean> {
    return this.#stopping ??= (async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = await Promise.race([
        this.#server.shutdown().then(() => true, () => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), opts.graceMs))),
      ]);
      clearTimeout(timer);
      return done;
    })();
  }
}
