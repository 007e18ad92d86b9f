/**
 * The remote executor: a hook served over HTTP as JSON-RPC 2.0. Each call POSTs
 * `{"jsonrpc":"2.0","id":n,"method":<point>,"params":<context>}` and reads back `result`
 * (`null` to pass, an object of decisions) or `error`. The bearer token is read from the
 * environment variable the declaration names, at call time; neither it nor any header value
 * ever appears in an error. Redirects are never followed (they would re-send the context and
 * the credentials to another address, perhaps in cleartext): a 3xx fails the call, naming the
 * origin it pointed at. A response body over 1 MiB fails the call unread.
 *
 * @module
 */
import {
  type CallOptions,
  type CallResult,
  type Executor,
  HookFailure,
  HookTimeout,
} from "../../executor.ts";
import type { PointName } from "../../sdk/points.ts";
import { checkResponse } from "./_jsonrpc.ts";
import { redact } from "../../secrets.ts";
import { locationOrigin, MAX_RESPONSE_BYTES, readCapped } from "./_read.ts";
import { safeUrl } from "./_url.ts";

/** Options for {@linkcode createRemoteExecutor}. */
export interface RemoteExecutorOptions {
  /** The declaration's `name`. */
  name: string;
  /** The endpoint (https, or http on loopback; the declaration loader checks the scheme). */
  url: string;
  /** The environment variable holding the bearer token; unset at call time fails the call. */
  tokenEnv?: string;
  /** Extra request headers, sent as given. Their values are treated as secrets. */
  headers?: Record<string, string>;
  /** The points the hook wants; default all. */
  on?: PointName[];
  /** Reads an environment variable; default `Deno.env.get`. */
  env?: (name: string) => string | undefined;
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

/** Builds the remote executor for one `url:` declaration. */
export function createRemoteExecutor(opts: RemoteExecutorOptions): RemoteExecutor {
  const getEnv = opts.env ?? ((n: string) => Deno.env.get(n));
  const where = `hook ${opts.name}`;
  let url: URL;
  try {
    url = new URL(opts.url);
  } catch {
    throw new HookFailure(`${where}: url is not a valid absolute URL; fix the declaration`);
  }
  const shown = safeUrl(url);
  try {
    new Headers(opts.headers ?? {});
  } catch {
    throw new HookFailure(
      `${where}: headers hold an invalid header name or value; fix the declaration`,
    );
  }
  const inFlight = new Set<AbortController>();
  let nextId = 1;

  /** The request headers and every secret value they carry. */
  function requestHeaders(): { headers: Headers; secrets: string[] } {
    const secrets = Object.values(opts.headers ?? {});
    const headers = new Headers(opts.headers ?? {});
    if (opts.tokenEnv !== undefined) {
      const token = getEnv(opts.tokenEnv);
      if (token === undefined || token === "") {
        throw new HookFailure(
          `${where}: environment variable ${opts.tokenEnv} (tokenEnv) is not set; ` +
            `export it before starting the-loop`,
        );
      }
      secrets.push(token);
      try {
        headers.set("Authorization", `Bearer ${token}`);
      } catch {
        throw new HookFailure(
          `${where}: ${opts.tokenEnv} (tokenEnv) holds characters a header cannot carry`,
        );
      }
    }
    return { headers, secrets };
  }

  /** Fetches under a time budget; maps every way it can fail to a HookFailure/HookTimeout. */
  async function send(
    target: URL,
    init: RequestInit,
    secrets: string[],
    timeoutMs: number,
  ): Promise<{ status: number; text: string }> {
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, timeoutMs);
    inFlight.add(ctl);
    const fail = (msg: string) => new HookFailure(redact(`${where} (${shown}): ${msg}`, secrets));
    let res: Response;
    let text: string | undefined;
    try {
      res = await fetch(target, { ...init, redirect: "manual", signal: ctl.signal });
      if (res.status >= 300 && res.status <= 399) {
        await res.body?.cancel().catch(() => {});
        text = "";
      } else text = await readCapped(res.body, MAX_RESPONSE_BYTES);
    } catch (err) {
      if (timedOut) {
        throw new HookTimeout(
          redact(`${where} (${shown}): no answer within ${timeoutMs} ms`, secrets),
        );
      }
      if (ctl.signal.aborted) throw fail("the call was cancelled because the hook was closed");
      const why = err instanceof Error ? err.message : String(err);
      throw fail(`could not reach the endpoint (${why}); is the hook server running?`);
    } finally {
      clearTimeout(timer);
      inFlight.delete(ctl);
    }
    if (res.status >= 300 && res.status <= 399) {
      throw fail(
        `the endpoint answered HTTP ${res.status}, redirecting to ${
          locationOrigin(res.headers.get("location"), target)
        }; redirects are not followed (they would re-send the context and credentials ` +
          `elsewhere): set url: to the address that answers`,
      );
    }
    if (text === undefined) {
      throw fail(
        `the response body is larger than ${MAX_RESPONSE_BYTES} bytes; a hook answers with ` +
          `a small JSON-RPC object`,
      );
    }
    return { status: res.status, text };
  }

  function snippet(text: string): string {
    const t = text.trim().replace(/\s+/g, " ");
    return t.length > 200 ? `${t.slice(0, 197)}...` : t;
  }

  return {
    name: opts.name,
    kind: "remote",
    handles: (point) => opts.on === undefined || opts.on.includes(point),

    async call(
      point: PointName,
      params: Record<string, unknown>,
      call: CallOptions,
    ): Promise<CallResult> {
      const { headers, secrets } = requestHeaders();
      headers.set("Content-Type", "application/json");
      const id = nextId++;
      const body = JSON.stringify({ jsonrpc: "2.0", id, method: point, params });
      const res = await send(url, { method: "POST", headers, body }, secrets, call.timeoutMs);
      const fail = (msg: string) => new HookFailure(redact(`${where} (${shown}): ${msg}`, secrets));
      if (res.status < 200 || res.status > 299) {
        throw fail(
          `the endpoint answered HTTP ${res.status}: ${snippet(res.text) || "(empty body)"}`,
        );
      }
      const out = checkResponse(res.text, id);
      if (!out.ok) throw fail(out.message);
      return { answer: out.answer };
    },

    async health(h: HealthOptions): Promise<HealthResult> {
      const { headers, secrets } = requestHeaders();
      const started = performance.now();
      let last = 0;
      for (const target of healthUrls(url)) {
        const left = Math.max(1, h.timeoutMs - (performance.now() - started));
        const res = await send(target, { method: "GET", headers }, secrets, left);
        last = res.status;
        if (res.status >= 200 && res.status <= 299) {
          return { status: res.status, elapsedMs: performance.now() - started };
        }
        if (res.status !== 404) break;
      }
      throw new HookFailure(
        redact(
          `${where} (${shown}): health check answered HTTP ${last}; is the hook server up?`,
          secrets,
        ),
      );
    },

    close(): Promise<void> {
      for (const ctl of inFlight) ctl.abort();
      inFlight.clear();
      return Promise.resolve();
    },
  };
}
