/**
 * One request to GitHub, done right: conditional GETs through the ETag cache, waiting out rate
 * limits (never failing on them), retrying 5xx and network errors with jittered backoff, and
 * turning everything else into a {@linkcode GitHubError} free of the token.
 *
 * @module
 */
import { delay } from "../async/mod.ts";
import type { EventSink } from "../events/record.ts";
import { NULL_SINK } from "../events/sinks.ts";
import { messageOf } from "../errors.ts";
import { VERSION } from "../version.ts";
import { EtagCache } from "./etag_cache.ts";
import { GitHubError, type GitHubErrorKind, redact } from "./error.ts";
import { backoffMs, rateWait, RESET_MARGIN_MS, type WaitReason } from "./_rate.ts";

/** Waits `ms`; rejects when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options shared by the transport and the client. */
export interface TransportOptions {
  /** Base URL of the REST API (`github.apiUrl`), e.g. `https://api.github.com`. */
  apiUrl: string;
  /** The token (see `resolveToken`); sent as `Authorization: Bearer`, nowhere else. */
  token: string;
  /** The conditional-request cache; default an in-memory one (no file). */
  cache?: EtagCache;
  /** Where `github.rate_limited` and `github.retrying` go; default nowhere. */
  events?: EventSink;
  /** Waits; tests pass one that records and returns at once. Default: a real timer. */
  sleep?: Sleep;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** In [0, 1), for the backoff's jitter; default `Math.random`. */
  random?: () => number;
  /** Attempts for a 5xx or network error (retried requests only); default 4. */
  maxAttempts?: number;
  /** The first backoff, in milliseconds; default 1,000. */
  backoffBaseMs?: number;
  /** The longest backoff, in milliseconds; default 30,000. */
  backoffMaxMs?: number;
  /** One attempt's time limit, in milliseconds; default 30,000. */
  timeoutMs?: number;
  /** Rate-limit waits one request may make before it gives up; default 100. */
  maxRateLimitWaits?: number;
  /** Aborting it (shutdown) ends waits and requests at once with a `GitHubError` (`aborted`). */
  signal?: AbortSignal;
  /** Default `the-loop/<version>`. */
  userAgent?: string;
}

/** What a request takes. */
export interface RequestOptions {
  method?: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** Retry 5xx and network errors; default true for GET/HEAD/DELETE/PUT, false otherwise. */
  retry?: boolean;
}

/** A request's answer. */
export interface GitHubResponse<T = unknown> {
  status: number;
  data: T;
  /** True when GitHub answered 304 and `data` is the cached body. */
  notModified: boolean;
  /** The `Link` header (from the cache on a 304). */
  link?: string;
}

/** The request counters (for `poll.cycle`). */
export interface GitHubStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Of those, answered 304 from the cache. */
  notModified: number;
  /** Retries after a 5xx or network error. */
  retries: number;
  /** Rate-limit waits made, and their total length. */
  rateLimitWaits: number;
  waitedMs: number;
  /** The last `X-RateLimit-Remaining` seen, if any. */
  rateLimitRemaining?: number;
}

const defaultSleep: Sleep = (ms, signal) => delay(ms, { signal });

const IDEMPOTENT = new Set(["GET", "HEAD", "DELETE", "PUT"]);

interface Attempt {
  res?: Response;
  text?: string;
  failure?: { kind: GitHubErrorKind; detail: string };
}

/** The request machinery under {@linkcode GitHubClient}. */
export class Transport {
  readonly base: URL;
  readonly cache: EtagCache;
  readonly #o: TransportOptions;
  readonly #events: EventSink;
  readonly #sleep: Sleep;
  readonly #now: () => number;
  readonly #random: () => number;
  #stats: GitHubStats = { requests: 0, notModified: 0, retries: 0, rateLimitWaits: 0, waitedMs: 0 };
  #blockedUntil = 0;

  constructor(opts: TransportOptions) {
    this.base = new URL(opts.apiUrl.replace(/\/+$/, ""));
    this.#o = opts;
    this.cache = opts.cache ?? new EtagCache();
    this.#events = opts.events ?? NULL_SINK;
    this.#sleep = opts.sleep ?? defaultSleep;
    this.#now = opts.now ?? Date.now;
    this.#random = opts.random ?? Math.random;
  }

  /** A copy of the counters. */
  stats(): GitHubStats {
    return { ...this.#stats };
  }

  /** The counters, then zeroes them (one poll cycle's worth). */
  takeStats(): GitHubStats {
    const s = this.stats();
    this.#stats = { requests: 0, notModified: 0, retries: 0, rateLimitWaits: 0, waitedMs: 0 };
    if (s.rateLimitRemaining !== undefined) this.#stats.rateLimitRemaining = s.rateLimitRemaining;
    return s;
  }

  /** The absolute URL of an API path (`/repos/…`) or of a `Link` URL GitHub gave. */
  url(pathOrUrl: string, query?: RequestOptions["query"]): URL {
    const url = /^https?:\/\//.test(pathOrUrl)
      ? new URL(pathOrUrl)
      : new URL(this.base.href.replace(/\/$/, "") + pathOrUrl);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    return url;
  }

  /** The path shown in errors and events: relative to the base, with the query. */
  display(url: URL): string {
    const basePath = this.base.pathname.replace(/\/$/, "");
    const path = url.pathname.startsWith(basePath)
      ? url.pathname.slice(basePath.length)
      : url.pathname;
    return redact(`${path || "/"}${url.search}`, this.#o.token);
  }

  /** Sends one request (with its waits and retries) and parses the JSON answer. */
  async request<T>(url: URL, opts: RequestOptions = {}): Promise<GitHubResponse<T>> {
    const method = (opts.method ?? "GET").toUpperCase();
    const path = this.display(url);
    const fail = (kind: GitHubErrorKind, detail: string, status?: number, attempts?: number) =>
      new GitHubError({
        kind,
        method,
        path,
        status,
        detail: redact(detail, this.#o.token),
        attempts,
      });
    if (url.origin !== this.base.origin) {
      throw fail("http", `refused: ${url.origin} is not the API's origin (the token stays home)`);
    }
    const retry = opts.retry ?? IDEMPOTENT.has(method);
    const maxAttempts = retry ? Math.max(1, this.#o.maxAttempts ?? 4) : 1;
    const key = url.href;
    const cached = method === "GET" ? this.cache.get(key) : undefined;
    let attempt = 0;
    let rateWaits = 0;
    let secondary = 0;
    for (;;) {
      await this.#waitForReset(method, path, fail);
      attempt++;
      const got = await this.#send(url, method, opts.body, cached);
      if (got.failure) {
        if (got.failure.kind === "aborted") throw fail("aborted", got.failure.detail);
        if (got.failure.kind === "bad-body" || attempt >= maxAttempts) {
          throw fail(got.failure.kind, got.failure.detail, undefined, attempt);
        }
        await this.#backoff(
          method,
          path,
          attempt,
          maxAttempts,
          { error: got.failure.detail },
          fail,
        );
        continue;
      }
      const res = got.res!;
      const text = got.text!;
      this.#noteRateHeaders(res.headers);
      if (res.status === 304 && cached) {
        this.#stats.notModified++;
        return { status: 304, data: cached.body as T, notModified: true, link: cached.link };
      }
      if (res.ok) {
        const data = parse(text, res);
        if (data instanceof Error) throw fail("bad-body", data.message, res.status);
        const link = res.headers.get("link") ?? undefined;
        if (method === "GET") {
          this.cache.set(key, {
            etag: res.headers.get("etag") ?? undefined,
            lastModified: res.headers.get("last-modified") ?? undefined,
            link,
            body: data,
            size: text.length,
          });
        }
        return { status: res.status, data: data as T, notModified: false, link };
      }
      const message = githubMessage(text) ?? res.statusText;
      const wait = rateWait(res.status, res.headers, message, this.#now(), secondary);
      if (wait) {
        if (wait.reason === "secondary") secondary++;
        if (++rateWaits > (this.#o.maxRateLimitWaits ?? 100)) {
          throw fail(
            "http",
            `still rate limited after ${rateWaits - 1} waits: ${message}`,
            res.status,
          );
        }
        this.#blockedUntil = 0; // this wait covers the reset the answer announced
        await this.#rateWait(method, path, wait.reason, wait.ms, res.status, fail);
        attempt = 0; // a rate limit is not a failure: the retry budget starts again
        continue;
      }
      if (res.status >= 500 && attempt < maxAttempts) {
        await this.#backoff(method, path, attempt, maxAttempts, { status: res.status }, fail);
        continue;
      }
      throw fail("http", message || "request failed", res.status, attempt);
    }
  }

  async #send(
    url: URL,
    method: string,
    body: unknown,
    cached: { etag?: string; lastModified?: string } | undefined,
  ): Promise<Attempt> {
    const headers: Record<string, string> = {
      accept: "application/vnd.github+json",
      authorization: `Bearer ${this.#o.token}`,
      "user-agent": this.#o.userAgent ?? `the-loop/${VERSION}`,
      "x-github-api-version": "2022-11-28",
    };
    if (cached?.etag) headers["if-none-match"] = cached.etag;
    else if (cached?.lastModified) headers["if-modified-since"] = cached.lastModified;
    if (body !== undefined) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(this.#o.timeoutMs ?? 30_000);
    const signal = this.#o.signal ? AbortSignal.any([this.#o.signal, timeout]) : timeout;
    this.#stats.requests++;
    const failure = (err: unknown): Attempt => {
      if (this.#o.signal?.aborted) return { failure: { kind: "aborted", detail: "shutting down" } };
      if (timeout.aborted) {
        return {
          failure: {
            kind: "timeout",
            detail: `no answer within ${this.#o.timeoutMs ?? 30_000} ms`,
          },
        };
      }
      return { failure: { kind: "network", detail: messageOf(err) } };
    };
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      return failure(err);
    }
    try {
      return { res, text: await res.text() };
    } catch (err) {
      const f = failure(err);
      if (f.failure!.kind !== "network") return f;
      return {
        failure: {
          kind: "bad-body",
          detail: `the answer's body was cut short (${res.status}): ${messageOf(err)}`,
        },
      };
    }
  }

  #noteRateHeaders(headers: Headers): void {
    const remaining = headers.get("x-ratelimit-remaining");
    if (remaining === null || !/^\d+$/.test(remaining.trim())) return;
    this.#stats.rateLimitRemaining = Number(remaining);
    const reset = headers.get("x-ratelimit-reset");
    if (Number(remaining) === 0 && reset && /^\d+$/.test(reset.trim())) {
      this.#blockedUntil = Math.max(this.#blockedUntil, Number(reset) * 1000 + RESET_MARGIN_MS);
    }
  }

  async #waitForReset(method: string, path: string, fail: Fail): Promise<void> {
    const ms = this.#blockedUntil - this.#now();
    this.#blockedUntil = 0;
    if (ms > 0) await this.#rateWait(method, path, "rate-limit-reset", ms, undefined, fail);
  }

  async #rateWait(
    method: string,
    path: string,
    reason: WaitReason,
    ms: number,
    status: number | undefined,
    fail: Fail,
  ): Promise<void> {
    this.#stats.rateLimitWaits++;
    this.#stats.waitedMs += ms;
    this.#events.emit("github.rate_limited", {
      method,
      path,
      reason,
      status: status ?? null,
      wait_ms: ms,
      until: new Date(this.#now() + ms).toISOString(),
    });
    await this.#pause(ms, fail);
  }

  async #backoff(
    method: string,
    path: string,
    attempt: number,
    maxAttempts: number,
    why: { status?: number; error?: string },
    fail: Fail,
  ): Promise<void> {
    const ms = backoffMs(
      attempt,
      this.#o.backoffBaseMs ?? 1_000,
      this.#o.backoffMaxMs ?? 30_000,
      this.#random(),
    );
    this.#stats.retries++;
    this.#events.emit("github.retrying", {
      method,
      path,
      attempt,
      max_attempts: maxAttempts,
      status: why.status ?? null,
      error: why.error === undefined ? null : redact(why.error, this.#o.token),
      wait_ms: ms,
    });
    await this.#pause(ms, fail);
  }

  async #pause(ms: number, fail: Fail): Promise<void> {
    try {
      await this.#sleep(ms, this.#o.signal);
    } catch {
      throw fail("aborted", "shutting down");
    }
    if (this.#o.signal?.aborted) throw fail("aborted", "shutting down");
  }
}

type Fail = (
  kind: GitHubErrorKind,
  detail: string,
  status?: number,
  attempts?: number,
) => GitHubError;

/** The JSON of an answer (null when empty), or an Error saying why it is not JSON. */
function parse(text: string, res: Response): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    const type = res.headers.get("content-type") ?? "no content-type";
    return new Error(`the answer (${res.status}, ${type}, ${text.length} bytes) is not JSON`);
  }
}

/** GitHub's `message` field of an error answer, if the body has one. */
function githubMessage(text: string): string | undefined {
  try {
    const m = (JSON.parse(text) as { message?: unknown })?.message;
    return typeof m === "string" ? m.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}
