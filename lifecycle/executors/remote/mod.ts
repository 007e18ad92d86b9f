/**
 * The remote executor: a hook served over HTTP as JSON-RPC 2.0. Each call POSTs
 * `{"jsonrpc":"2.0","id":n,"method":<point>,"params":<context>}` and reads back `result`
 * (`null` to pass, an object of decisions) or `error`. The bearer token is read from the
 * environment variable the declaration names, at call time; neither it nor any header value
 * ever appears in an error. Redirects are never followed (they would re-send the context and
 * the credentials to another address, perhaps in cleartext): a 3xx fails the call, naming the
 * origin it pointed at. A response body over 1 MiB fails the call unread (the stream is
 * cancelled at the cap, so a server cannot make the-loop buffer an unbounded answer).
 *
 * @module
 */
import { messageOf } from "../../../errors.ts";
import { Deadline } from "../../../async/mod.ts";
import {
  type CallOptions,
  type CallResult,
  type Executor,
  HookFailure,
  type HookLog,
  HookTimeout,
} from "../../executor.ts";
import {
  bodyTooLarge,
  healthStatus,
  type HookAt,
  httpStatus,
  invalidHeaders,
  invalidUrl,
  redirected,
  remoteCancelled,
  remoteTimedOut,
  rpcRefused,
  tokenUnsendable,
  tokenUnset,
  unreachable,
} from "../../_messages.ts";
import { redact } from "../../secrets.ts";
import { ANSWER_MAX_BYTES } from "../../sdk/contract.ts";
import type { PointName } from "../../sdk/points.ts";
import { readCapped } from "../../sdk/read_capped.ts";
import { DeclaredHook, type HookOptions } from "../_declared.ts";
import { checkResponse } from "./_jsonrpc.ts";

/** Largest response body a remote hook may send: 1 MiB, the cap on a hook's whole answer. */
const MAX_RESPONSE_BYTES = ANSWER_MAX_BYTES;

/** Options for {@linkcode createRemoteExecutor}: `env` reads the token at call time. */
export interface RemoteExecutorOptions extends HookOptions {
  /** The endpoint (https, or http on loopback; the declaration loader checks the scheme). */
  url: string;
  /** The environment variable holding the bearer token; unset at call time fails the call. */
  tokenEnv?: string;
  /** Extra request headers, sent as given. Their values are treated as secrets. */
  headers?: Record<string, string>;
}

/** Options for {@linkcode RemoteExecutor.health}. */
export interface HealthOptions {
  timeoutMs: number;
}

/** What a successful health check saw. */
export interface HealthResult {
  /** The HTTP status (2xx). */
  status: number;
  /** How long the check took, in milliseconds. */
  elapsedMs: number;
}

/** A remote hook; `health` backs `hooks validate --online`. */
export interface RemoteExecutor extends Executor {
  readonly kind: "remote";
  /**
   * GETs the url's path + `/health` (falling back to the origin's `/health` on a 404); resolves on
   * a 2xx, otherwise throws {@linkcode HookFailure} ({@linkcode HookTimeout} when out of time).
   */
  health(opts: HealthOptions): Promise<HealthResult>;
}

/** Builds the remote executor for one `url:` declaration. */
export function createRemoteExecutor(opts: RemoteExecutorOptions): RemoteExecutor {
  return new RemoteHook(opts);
}

/** A request's headers and every secret value they carry (scrubbed from its errors). */
interface Credentials {
  headers: Headers;
  secrets: string[];
}

/** What a request got back (any status but a redirect, its body read within the cap). */
interface Answered {
  status: number;
  text: string;
}

/** One remote hook: its url checked once, its requests in flight cancelled by `close`. */
class RemoteHook extends DeclaredHook implements RemoteExecutor {
  readonly kind = "remote" as const;
  readonly #opts: RemoteExecutorOptions;
  readonly #url: URL;
  /** Whom its messages are about: the url as a message may show it. */
  readonly #at: HookAt;
  readonly #inFlight = new Set<AbortController>();
  #nextId = 1;

  constructor(opts: RemoteExecutorOptions) {
    super(opts);
    const at: HookAt = { hook: opts.name, kind: "remote" };
    this.#opts = opts;
    this.#url = parseUrl(opts.url, at);
    this.#at = { ...at, target: shownUrl(this.#url) };
    try {
      new Headers(opts.headers ?? {});
    } catch {
      throw new HookFailure(invalidHeaders(at));
    }
  }

  async call(
    point: PointName,
    params: Record<string, unknown>,
    call: CallOptions,
  ): Promise<CallResult> {
    const { headers, secrets } = this.#credentials();
    headers.set("Content-Type", "application/json");
    const id = this.#nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: point, params });
    const at = { ...this.#at, point };
    const res = await this.#send(at, this.#url, { method: "POST", headers, body }, secrets, {
      timeoutMs: call.timeoutMs,
    });
    if (res.status < 200 || res.status > 299) {
      throw failure(httpStatus(at, res.status, snippet(res.text)), secrets);
    }
    const out = checkResponse(res.text, id);
    if (!out.ok) throw failure(rpcRefused(at, out), secrets);
    return { answer: out.answer };
  }

  async health(h: HealthOptions): Promise<HealthResult> {
    const { headers, secrets } = this.#credentials();
    const started = performance.now();
    let last = 0;
    for (const target of healthUrls(this.#url)) {
      const timeoutMs = Math.max(1, h.timeoutMs - (performance.now() - started));
      const res = await this.#send(this.#at, target, { method: "GET", headers }, secrets, {
        timeoutMs,
      });
      last = res.status;
      if (res.status >= 200 && res.status <= 299) {
        return { status: res.status, elapsedMs: performance.now() - started };
      }
      if (res.status !== 404) break;
    }
    throw failure(healthStatus(this.#at, last), secrets);
  }

  close(): Promise<void> {
    for (const ctl of this.#inFlight) ctl.abort();
    this.#inFlight.clear();
    return Promise.resolve();
  }

  /** The request headers: the declaration's, and the bearer token read now. */
  #credentials(): Credentials {
    const { headers: declared = {}, tokenEnv } = this.#opts;
    const secrets = Object.values(declared);
    const headers = new Headers(declared);
    if (tokenEnv === undefined) return { headers, secrets };
    const token = this.env(tokenEnv);
    if (token === undefined || token === "") throw new HookFailure(tokenUnset(this.#at, tokenEnv));
    secrets.push(token);
    try {
      headers.set("Authorization", `Bearer ${token}`);
    } catch {
      throw new HookFailure(tokenUnsendable(this.#at, tokenEnv));
    }
    return { headers, secrets };
  }

  /**
   * Fetches `target` within `timeoutMs` (the body too), never following a redirect nor reading
   * past the cap. Every way it can fail is a {@linkcode HookFailure} (a {@linkcode HookTimeout}
   * when out of time), scrubbed of `secrets`.
   */
  async #send(
    at: HookAt,
    target: URL,
    init: RequestInit,
    secrets: string[],
    { timeoutMs }: { timeoutMs: number },
  ): Promise<Answered> {
    const ctl = new AbortController();
    const deadline = new Deadline(timeoutMs);
    this.#inFlight.add(ctl);
    let res: Response;
    let text: string | undefined;
    try {
      const signal = AbortSignal.any([ctl.signal, deadline.signal]);
      res = await fetch(target, { ...init, redirect: "manual", signal });
      text = await bodyOf(res);
    } catch (err) {
      if (deadline.expired) throw timeout(remoteTimedOut(at, timeoutMs), secrets);
      if (ctl.signal.aborted) throw failure(remoteCancelled(at), secrets);
      throw failure(unreachable(at, messageOf(err)), secrets);
    } finally {
      deadline.clear();
      this.#inFlight.delete(ctl);
    }
    if (isRedirect(res.status)) {
      const origin = locationOrigin(res.headers.get("location"), target);
      throw failure(redirected(at, res.status, origin), secrets);
    }
    if (text === undefined) throw failure(bodyTooLarge(at, MAX_RESPONSE_BYTES), secrets);
    return { status: res.status, text };
  }
}

/** The declaration's url, parsed; an invalid one fails the hook's creation. */
function parseUrl(url: string, at: HookAt): URL {
  try {
    return new URL(url);
  } catch {
    throw new HookFailure(invalidUrl(at));
  }
}

/** The url as a message may show it: no userinfo, no query, no fragment (a query may carry a key). */
function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The origin a redirect's `Location` points at (never its path or query), for a message. */
function locationOrigin(location: string | null, base: URL): string {
  if (!location) return "nowhere (no Location header)";
  try {
    return new URL(location, base).origin;
  } catch {
    return "an invalid Location";
  }
}

function isRedirect(status: number): boolean {
  return status >= 300 && status <= 399;
}

/**
 * The body's text: empty for a redirect (left unread), `undefined` once it passes
 * {@linkcode MAX_RESPONSE_BYTES} (the stream is then cancelled).
 */
async function bodyOf(res: Response): Promise<string | undefined> {
  if (isRedirect(res.status)) {
    await res.body?.cancel().catch(() => {});
    return "";
  }
  const bytes = await readCapped(res.body, MAX_RESPONSE_BYTES);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/**
 * Where the health check looks: the url's path + `/health`, then (on a 404, when the path is
 * not the root) the origin's `/health`, where the-loop's own `serveHooks` answers it.
 */
function healthUrls(url: URL): URL[] {
  const at = (path: string) => {
    const u = new URL(url);
    u.pathname = path;
    u.search = "";
    u.hash = "";
    return u;
  };
  const base = url.pathname.replace(/\/+$/, "");
  return base === "" ? [at("/health")] : [at(`${base}/health`), at("/health")];
}

/** The start of a body, on one line, for a message. */
function snippet(text: string): string {
  const t = text.trim().replace(/\s+/g, " ");
  return t.length > 200 ? `${t.slice(0, 197)}...` : t;
}

/** `log` as a failure, its message scrubbed of the request's secrets. */
function failure(log: HookLog, secrets: string[]): HookFailure {
  return new HookFailure({ ...log, message: redact(log.message, secrets) });
}

function timeout(log: HookLog, secrets: string[]): HookTimeout {
  return new HookTimeout({ ...log, message: redact(log.message, secrets) });
}
