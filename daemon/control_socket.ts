/**
 * A daemon's control endpoint: a Unix socket (`<state.root>/poll.sock`,
 * `<state.root>/gh-webhook.sock`) through which the CLI's verbs (`advance`, `ask`, `reply`) reach
 * the running daemon. {@linkcode serveControl} binds it — a stale socket file at the path removed
 * first (the caller holds the daemon's pidfile lock, so a socket there is a dead daemon's), mode
 * 0600 before it can be reached (bound in a private folder, then renamed into place) — and
 * answers each connection with one line:
 *
 * | the client sends …                             | the answer                               |
 * | ---------------------------------------------- | ---------------------------------------- |
 * | one JSON object and a newline (or end of file) | `handle(request)`'s `{exit, message, …}` |
 * | more than `maxBytes` (64 KiB) before a newline | `{"exit":2,"message":"… too long …"}`    |
 * | a line that is not a JSON object              | `{"exit":2,"message":"… not JSON …"}`    |
 * | nothing whole within `readTimeoutMs` (5 s)     | the connection is closed, no answer      |
 *
 * then the connection is closed. Connections are handled concurrently. What a request means
 * (the verbs, the capability) is the handler's business: this file knows lines, not verbs.
 *
 * ```ts
 * const server = await serveControl({ path: join(root, "poll.sock"), handle });
 * // …
 * await server.close(); // new connections refused; requests in hand are answered (bounded)
 * ```
 *
 * @module
 */
import { dirname, join } from "node:path";
import { deadline, DeadlineError, settlesWithin } from "../async/mod.ts";
import { messageOf } from "../errors.ts";
import type { EventSink } from "../events/mod.ts";

/** The most bytes a request line may have: {@linkcode serveControl}'s default. */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** How long a client has to send its whole line: {@linkcode serveControl}'s default. */
export const READ_TIMEOUT_MS = 5_000;
/** How long a stopping server lets the requests in hand finish. */
export const CLOSE_GRACE_MS = 5_000;
/** The longest path a Unix socket may be bound at on Linux (`sun_path` is 108 bytes with its NUL). */
export const MAX_SOCKET_PATH_BYTES = 107;

/** Which daemon a socket is: `poll start`'s or `gh-webhook start`'s. */
export type DaemonName = "poll" | "gh-webhook";

/** Each daemon's control socket's file name under `state.root`. */
export const CONTROL_SOCKETS: Record<DaemonName, string> = {
  "poll": "poll.sock",
  "gh-webhook": "gh-webhook.sock",
};

/** The control socket of `daemon` under `stateRoot`. */
export function controlSocketPath(stateRoot: string, daemon: DaemonName): string {
  return join(stateRoot, CONTROL_SOCKETS[daemon]);
}

/** One answer line: what the CLI exits with, one line for people, and the `--format json` data. */
export interface ControlResponse {
  exit: 0 | 1 | 2;
  message: string;
  data?: Record<string, unknown>;
}

/** Options of {@linkcode serveControl}. */
export interface ControlServerOptions {
  /** The socket's path. */
  path: string;
  /**
   * Answers one request (a parsed JSON object). `signal` is aborted when the server closes. A
   * throw is answered `{exit: 1}` with its message.
   */
  handle(request: Record<string, unknown>, opts: { signal: AbortSignal }): Promise<ControlResponse>;
  /** Told `control.listening` and `control.request_rejected` (a malformed or oversized line). */
  events?: EventSink;
  /** The cap of a request line, in bytes; default {@linkcode MAX_REQUEST_BYTES}. */
  maxBytes?: number;
  /** How long a client has to send its line; default {@linkcode READ_TIMEOUT_MS}. */
  readTimeoutMs?: number;
}

/** A listening control endpoint. */
export interface ControlServer {
  readonly path: string;
  /** Stops listening, removes the socket file, lets the requests in hand finish (bounded). */
  close(): Promise<void>;
}

/** Throws, naming the path and what to do, when `path` is too long for a Unix socket. */
export function checkSocketPath(path: string): void {
  const bytes = new TextEncoder().encode(path).length;
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `the control socket's path ${path} is ${bytes} bytes, more than the ` +
        `${MAX_SOCKET_PATH_BYTES} a Unix socket's path may have: give state.root a shorter path`,
    );
  }
}

/** Removes a dead daemon's socket at `path`; throws when a live one or something else is there. */
async function clearStale(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!info.isSocket) {
    throw new Error(
      `${path} is in the way of the control socket and is not a socket: move it away, or give ` +
        `state.root another folder`,
    );
  }
  // the caller holds its pidfile's lock, but another pidfile (`--pidfile`) is another lock
  try {
    (await Deno.connect({ transport: "unix", path })).close();
  } catch {
    await Deno.remove(path); // nothing listens: a dead daemon's
    return;
  }
  throw new Error(
    `another daemon already serves the control socket ${path}: one poller and one gh-webhook ` +
      "per state.root (a second --pidfile does not make room); stop it, or give this one " +
      "another state.root",
  );
}

/**
 * Binds a Unix socket at `path`, mode 0600 before anyone can connect: bound in a folder of its
 * own (mode 0700), made 0600 there, then renamed into place (a socket keeps its listener when
 * renamed). When that folder's path would be too long for a socket, it is bound in place and
 * made 0600 right after.
 */
async function bindPrivate(path: string): Promise<Deno.UnixListener> {
  const dir = join(dirname(path), `.ctl-${crypto.randomUUID().slice(0, 8)}`);
  const inDir = join(dir, "s");
  const staged = new TextEncoder().encode(inDir).length <= MAX_SOCKET_PATH_BYTES;
  const at = staged ? inDir : path;
  let listener: Deno.UnixListener | undefined;
  try {
    if (staged) await Deno.mkdir(dir, { mode: 0o700 });
    listener = Deno.listen({ transport: "unix", path: at });
    await Deno.chmod(at, 0o600);
    if (staged) await Deno.rename(at, path);
    return listener;
  } catch (error) {
    listener?.close();
    await Deno.remove(at).catch(() => {});
    throw new Error(`cannot bind the control socket ${path}: ${messageOf(error)}`);
  } finally {
    if (staged) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Binds the socket and serves it: see the module doc. */
export async function serveControl(o: ControlServerOptions): Promise<ControlServer> {
  checkSocketPath(o.path);
  await clearStale(o.path);
  const listener = await bindPrivate(o.path);
  o.events?.emit("control.listening", { path: o.path });
  const closing = new AbortController();
  const inHand = new Set<Promise<void>>();
  const serving = (async () => {
    try {
      for await (const conn of listener) {
        const p = answer(conn, o, closing.signal).catch(() => {});
        inHand.add(p);
        p.finally(() => inHand.delete(p));
      }
    } catch {
      // the listener was closed
    }
  })();
  let closed: Promise<void> | undefined;
  return {
    path: o.path,
    close() {
      closed ??= (async () => {
        try {
          listener.close();
        } catch { /* closed already */ }
        await serving;
        await Deno.remove(o.path).catch(() => {});
        if (!(await settlesWithin(Promise.all([...inHand]), CLOSE_GRACE_MS))) closing.abort();
        await settlesWithin(Promise.all([...inHand]), CLOSE_GRACE_MS);
      })();
      return closed;
    },
  };
}

/** Reads one line, answers it, closes the connection. */
async function answer(
  conn: Deno.UnixConn,
  o: ControlServerOptions,
  signal: AbortSignal,
): Promise<void> {
  try {
    const max = o.maxBytes ?? MAX_REQUEST_BYTES;
    let line: Uint8Array | "too-long";
    try {
      line = await deadline(readLine(conn, max), o.readTimeoutMs ?? READ_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof DeadlineError) return; // a client that sends nothing gets nothing
      throw error;
    }
    const response = await respond(line, max, o, signal);
    await writeAll(conn, new TextEncoder().encode(JSON.stringify(response) + "\n"));
  } finally {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

async function respond(
  line: Uint8Array | "too-long",
  max: number,
  o: ControlServerOptions,
  signal: AbortSignal,
): Promise<ControlResponse> {
  const reject = (reason: string, message: string): ControlResponse => {
    o.events?.emit("control.request_rejected", { path: o.path, reason }, { level: "warning" });
    return { exit: 2, message };
  };
  if (line === "too-long") {
    return reject("too-long", `the request is longer than ${max} bytes: nothing was done`);
  }
  let request: unknown;
  try {
    request = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(line));
  } catch {
    return reject("not-json", "the request is not one line of JSON: nothing was done");
  }
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    return reject("not-an-object", "the request is not a JSON object: nothing was done");
  }
  try {
    return await o.handle(request as Record<string, unknown>, { signal });
  } catch (error) {
    return { exit: 1, message: `the daemon could not do it: ${messageOf(error)}` };
  }
}

/** The bytes up to the first newline (or the end), or `too-long` past `max` bytes. */
export async function readLine(
  conn: { read(p: Uint8Array): Promise<number | null> },
  max: number,
): Promise<Uint8Array | "too-long"> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const buf = new Uint8Array(16 * 1024);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    const chunk = buf.subarray(0, n);
    const nl = chunk.indexOf(0x0a);
    const part = nl === -1 ? chunk : chunk.subarray(0, nl);
    size += part.length;
    if (size > max) return "too-long";
    chunks.push(part.slice());
    if (nl !== -1) break;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Writes all of `bytes`. */
export async function writeAll(
  conn: { write(p: Uint8Array): Promise<number> },
  bytes: Uint8Array,
): Promise<void> {
  let rest = bytes;
  while (rest.length > 0) rest = rest.subarray(await conn.write(rest));
}
