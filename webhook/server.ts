/**
 * The HTTP server around the handler, with the receiver's limits: `node:http` on a host and port
 * (`0`: a free one, which {@linkcode WebhookServer.addr} then names).
 *
 * - **Headers in time.** A connection whose request headers are not complete within
 *   `headersTimeoutMs` (default {@linkcode DEFAULT_HEADERS_TIMEOUT_MS}) is answered 408 and
 *   closed; so is one whose body is not complete within {@linkcode REQUEST_TIMEOUT_MS}.
 *   `Deno.serve` has no such deadline (a connection that never finishes its headers stays open
 *   for ever); Deno's `node:http` keeps Node's `headersTimeout` and `requestTimeout`.
 * - **A cap on connections** (`maxConnections`, default {@linkcode DEFAULT_MAX_CONNECTIONS}). At
 *   the cap, a new connection is taken and the oldest connection with no request being handled
 *   (idle, or still sending its headers) is closed to make room: a flood of connections that
 *   send nothing cannot keep `/health` or a delivery out. With none idle, the oldest still
 *   sending its request's body goes (bodies trickled a byte at a time cannot either). When every
 *   connection has a request the handler has, the new one is closed at once.
 * - **Bodies read under the cap** ({@linkcode readCapped}): a declared length over it is refused
 *   before a byte is read; a body without one (chunked) is capped at
 *   {@linkcode MAX_CHUNKED_BODY_BYTES}, kept as its chunks (copied once, at its end), and on
 *   passing its cap the chunks are dropped and the connection is closed after the 413.
 * - A bounded graceful shutdown: new connections are refused at once, requests in progress get
 *   `graceMs` to finish, then every connection is closed.
 *
 * @module
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { later, settlesWithin } from "../async/mod.ts";
import type { CappedBody } from "./body.ts";
import type { Answer, Incoming } from "./handler.ts";

/** How long a connection may take to send a request's headers (ms) before it is closed. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** How long a request may take to arrive whole, headers and body (ms) before it is closed. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** The most connections open at once. */
export const DEFAULT_MAX_CONNECTIONS = 1_024;
/**
 * The cap on a body of no declared length (chunked): 1 MiB. GitHub always declares the length;
 * reading an undeclared one up to the full cap held up to 26 MiB of chunks per connection, and
 * the process's heap kept most of it after they were freed.
 */
export const MAX_CHUNKED_BODY_BYTES = 1024 * 1024;
/** How long a connection closed after a refusal may still take the answer in (ms). */
const CLOSE_LINGER_MS = 1_000;
/** How long an idle keep-alive connection is kept (ms). */
const KEEP_ALIVE_MS = 5_000;

/** Options of {@linkcode WebhookServer.start}. */
export interface WebhookServerOptions {
  hostname: string;
  port: number;
  /** Answers a request; `body` is its body, read under `maxBodyBytes`. */
  handler: (req: Incoming, body: CappedBody) => Promise<Answer>;
  /** The body cap in bytes. */
  maxBodyBytes: number;
  /** Default {@linkcode DEFAULT_HEADERS_TIMEOUT_MS}. */
  headersTimeoutMs?: number;
  /** Default {@linkcode DEFAULT_MAX_CONNECTIONS}. */
  maxConnections?: number;
}

/** A request as the handler reads it. */
class NodeIncoming implements Incoming {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };

  constructor(req: IncomingMessage) {
    this.method = req.method ?? "GET";
    this.url = req.url ?? "/";
    const h = req.headers;
    this.headers = {
      get(name: string): string | null {
        const value = h[name];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    };
  }
}

/**
 * Reads `req`'s body, refusing it once it is (or says it will be) over `max` bytes (a body of no
 * declared length: over `chunkedMax`, which is at most `max`). A declared
 * length is read into one buffer of that length; a chunked body's chunks are kept until it ends
 * (then copied once into one buffer) or passes `max` (then dropped, and the rest never read).
 */
export function readCapped(
  req: IncomingMessage,
  max: number,
  chunkedMax = max,
): Promise<CappedBody> {
  const header = req.headers["content-length"];
  const declared = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
  if (declared !== undefined && declared > max) {
    req.pause();
    return Promise.resolve({ ok: false, reason: "too-large", declared });
  }
  const cap = declared === undefined ? Math.min(max, chunkedMax) : max;
  return new Promise((resolve, reject) => {
    const whole = declared !== undefined ? new Uint8Array(declared) : undefined;
    let chunks: Uint8Array[] = [];
    let used = 0;
    const onData = (chunk: Uint8Array) => {
      if (used + chunk.length > cap) {
        chunks = [];
        done();
        req.pause();
        return resolve({ ok: false, reason: "too-large", max: cap });
      }
      if (whole) whole.set(chunk, used);
      else chunks.push(chunk);
      used += chunk.length;
    };
    const onEnd = () => {
      done();
      if (whole) {
        return resolve({ ok: true, bytes: used === whole.length ? whole : whole.slice(0, used) });
      }
      const bytes = new Uint8Array(used);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      chunks = [];
      resolve({ ok: true, bytes });
    };
    const onError = (error: Error) => {
      done();
      chunks = [];
      reject(error);
    };
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** What the server knows of a connection. */
interface Conn {
  /** Requests being handled (read, answered, or the answer being written). */
  busy: number;
  /** Of those, requests whose body is still arriving (not yet handed to the handler). */
  reading: number;
}

/** What the server's handlers and {@linkcode WebhookServer.shutdown} share. */
interface ServerState {
  /** Open connections, the least recently active first. */
  conns: Map<Socket, Conn>;
  /** Shutting down: new connections are refused. */
  closing: boolean;
}

/** A listening receiver. */
export class WebhookServer {
  readonly #server: http.Server;
  readonly #addr: Deno.NetAddr;
  readonly #state: ServerState;
  #stopping?: Promise<boolean>;

  private constructor(server: http.Server, addr: Deno.NetAddr, state: ServerState) {
    this.#server = server;
    this.#addr = addr;
    this.#state = state;
  }

  /** Starts listening; rejects when the address cannot be bound (`Deno.errors.AddrInUse`, …). */
  static start(opts: WebhookServerOptions): Promise<WebhookServer> {
    const headersTimeout = opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
    const max = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const state: ServerState = { conns: new Map(), closing: false };
    const { conns } = state;
    const server = http.createServer({
      headersTimeout,
      requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout),
      keepAliveTimeout: KEEP_ALIVE_MS,
      // the deadlines are checked this often: a slow connection is closed within this of its due
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headersTimeout / 4))),
    });
    server.on("connection", (socket: Socket) => {
      if (state.closing) return socket.destroy();
      if (conns.size >= max) {
        const oldest = (which: (c: Conn) => boolean) => {
          for (const [s, c] of conns) if (which(c)) return s;
        };
        // the oldest quiet one; none quiet: the oldest still sending a body (a trickled body
        // holds a connection until the request deadline), never one whose request the handler has
        const victim = oldest((c) => c.busy === 0) ?? oldest((c) => c.busy === c.reading);
        if (!victim) return socket.destroy(); // every connection has a request being handled
        conns.delete(victim);
        victim.destroy();
      }
      conns.set(socket, { busy: 0, reading: 0 });
      socket.once("close", () => conns.delete(socket));
    });
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      const conn = conns.get(socket);
      if (conn) {
        conn.busy++;
        // the most recently active last: the first to go at the cap is the longest quiet
        conns.delete(socket);
        conns.set(socket, conn);
      }
      res.once("close", () => {
        if (conn) conn.busy--;
        if (state.closing && conn?.busy === 0) socket.destroy();
      });
      serve(req, res, opts, conn).catch(() => socket.destroy());
    });
    // a malformed request, or a deadline passed: Node answers 400/408 and closes; keep it at that
    server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
      const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
      if (socket.writable && !socket.destroyed) {
        socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nconnection: close\r\n\r\n`);
      }
      socket.destroy();
    });
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => reject(denoError(error));
      server.once("error", onError);
      server.listen({ host: opts.hostname, port: opts.port }, () => {
        server.off("error", onError);
        const a = server.address();
        const addr: Deno.NetAddr = typeof a === "object" && a
          ? { transport: "tcp", hostname: a.address, port: a.port }
          : { transport: "tcp", hostname: opts.hostname, port: opts.port };
        resolve(new WebhookServer(server, addr, state));
      });
    });
  }

  /** The bound address (the real port when 0 was asked for). */
  get addr(): Deno.NetAddr {
    return this.#addr;
  }

  /**
   * Stops accepting and waits up to `graceMs` for requests in progress; resolves `true` when
   * they all finished, `false` when some were still running at the deadline.
   */
  shutdown(opts: { graceMs: number }): Promise<boolean> {
    return this.#stopping ??= (async () => {
      this.#state.closing = true;
      const closed = new Promise<boolean>((resolve) => this.#server.close(() => resolve(true)));
      // connections with no request in hand go now; the others once their answer is written
      for (const [socket, conn] of this.#state.conns) if (conn.busy === 0) socket.destroy();
      const done = await settlesWithin(closed, opts.graceMs);
      if (!done) { for (const socket of this.#state.conns.keys()) socket.destroy(); }
      return done;
    })();
  }
}

/** Reads `req`'s body under the cap, asks the handler, writes its answer. */
async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  opts: WebhookServerOptions,
  conn?: Conn,
): Promise<void> {
  const incoming = new NodeIncoming(req);
  // only a POST's body is read (the handler reads no other); any other's is left unread
  let body: CappedBody = { ok: true, bytes: new Uint8Array(0) };
  if (req.method === "POST") {
    if (conn) conn.reading++;
    try {
      body = await readCapped(req, opts.maxBodyBytes, MAX_CHUNKED_BODY_BYTES);
    } finally {
      if (conn) conn.reading--;
    }
  }
  const answer = await opts.handler(incoming, body);
  const close = answer.headers.connection === "close" || !body.ok || req.method !== "POST" &&
      !req.complete;
  res.writeHead(answer.status, {
    ...answer.headers,
    "content-length": String(Buffer.byteLength(answer.body)),
    ...(close ? { connection: "close" } : {}),
  });
  // the rest of a refused body is never read: the connection is closed once the answer is out
  if (close) {
    const socket = req.socket;
    res.once("finish", () => {
      socket.end();
      later(() => socket.destroy(), CLOSE_LINGER_MS);
    });
  }
  res.end(answer.body);
}

/** A `node:net` listen error as the `Deno.errors` class callers know. */
function denoError(error: NodeJS.ErrnoException): Error {
  const message = error.message;
  switch (error.code) {
    case "EADDRINUSE":
      return new Deno.errors.AddrInUse(message);
    case "EADDRNOTAVAIL":
      return new Deno.errors.AddrNotAvailable(message);
    case "EACCES":
    case "EPERM":
      return new Deno.errors.PermissionDenied(message);
    default:
      return error;
  }
}
