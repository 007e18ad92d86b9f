/**
 * Failures an operator must see: every kind of failure a daemon (`poll start`, `gh-webhook start`)
 * meets, with what to do about it, in one table ({@linkcode FAILURES}); which kind an error is
 * ({@linkcode failureKindOf}); and {@linkcode Trouble}, which says each kind on stderr at most once
 * per kind per {@linkcode WARN_EVERY_MS} (the clock is injected), keeps the last error for the
 * status file, and holds the daemon's degraded reasons (the event log or a state file that cannot
 * be written) for the status file and the receiver's `/health`.
 *
 * ```ts
 * const trouble = new Trouble({ prefix: "poll: warning", warn: (l) => ctx.warn(l + "\n") });
 * trouble.failed("server", "GitHub GET /repos/o/r/issues: 502 Bad Gateway (after 4 attempts)");
 * // poll: warning: GitHub answered with a server error (5xx): … — GitHub GET …: 502 …
 * trouble.lastError; // { kind: "server", message: "GitHub GET …", at: "2026-…Z" }
 * ```
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import { GitHubError } from "../github/mod.ts";

/** A kind of failure. */
export type FailureKind =
  | "auth"
  | "forbidden"
  | "sso"
  | "not-found"
  | "rate-limited"
  | "server"
  | "bad-body"
  | "network"
  | "timeout"
  | "graphql"
  | "request"
  | "config"
  | "event-log"
  | "state-write"
  | "route"
  | "other";

/** What a kind of failure is called and what to do about it. */
export interface FailureInfo {
  /** What happened, e.g. `GitHub refused the token (401)`. */
  summary: string;
  /** What to do. */
  remedy: string;
}

/** Every kind, with its remedy: the one place these words live (exhaustive by its type). */
export const FAILURES: Readonly<Record<FailureKind, FailureInfo>> = {
  "auth": {
    summary: "GitHub refused the token (401)",
    remedy: "it is wrong, expired or revoked: make a new one and export it in the variable " +
      "github.tokenEnv names (or GH_TOKEN / GITHUB_TOKEN, or run 'gh auth login'), then restart",
  },
  "forbidden": {
    summary: "GitHub forbade the request (403)",
    remedy: "the token lacks a permission: give it read access to the repository's issues and " +
      "pull requests (and write access to issues for the give-up notice)",
  },
  "sso": {
    summary: "GitHub requires SAML single sign-on for this organisation (403)",
    remedy: "authorize the token for the organisation (GitHub → Settings → Developer settings → " +
      "the token → Configure SSO), or use one that is",
  },
  "not-found": {
    summary: "GitHub does not know the repository or item (404)",
    remedy: "check the repository's name (OWNER/REPO) in polling.sources, and that the token can " +
      "see it: GitHub answers 404 to a token without access to a private repository",
  },
  "rate-limited": {
    summary: "GitHub's rate limit was not lifted after many waits",
    remedy: "poll less often (polling.intervalSeconds) or fewer repositories, or give the-loop a " +
      "token of its own so other tools do not spend its limit",
  },
  "server": {
    summary: "GitHub answered with a server error (5xx) after the retries",
    remedy: "usually passing: the next cycle tries again; see https://www.githubstatus.com",
  },
  "bad-body": {
    summary: "GitHub's answer was cut short or is not JSON",
    remedy: "the next cycle tries again; if it lasts, check that github.apiUrl is the API " +
      "(https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise) and that no proxy " +
      "in between rewrites or cuts answers",
  },
  "network": {
    summary: "GitHub could not be reached",
    remedy: "check the network, DNS, any proxy, and github.apiUrl",
  },
  "timeout": {
    summary: "GitHub did not answer in time",
    remedy: "usually passing: the next cycle tries again; if it lasts, check the network and " +
      "https://www.githubstatus.com",
  },
  "graphql": {
    summary: "GitHub's GraphQL API answered with errors",
    remedy: "check that the token may read the repository's pull requests; the next cycle tries " +
      "again",
  },
  "request": {
    summary: "GitHub refused a request",
    remedy: "see the message; the next cycle tries again",
  },
  "config": {
    summary: "a polling source polls nothing",
    remedy: "give every entry of polling.sources its repos (OWNER/REPO) and a label (its own or " +
      "webhooks.ghWebhook.routing.autoExecuteLabel)",
  },
  "event-log": {
    summary: "the event log cannot be written",
    remedy: "events are not being recorded: free space on its disk, or check eventLog.path and " +
      "its permissions",
  },
  "state-write": {
    summary: "a state file cannot be written",
    remedy: "free space on the state root's disk, or check state.root and its permissions",
  },
  "route": {
    summary: "routing a delivery failed",
    remedy: "see the message and the event log (webhook.route_failed); redeliver it from the " +
      "webhook's Recent Deliveries once fixed",
  },
  "other": {
    summary: "something failed",
    remedy: "see the message and the event log",
  },
};

/** Which kind of failure `error` is (a {@linkcode GitHubError} by its kind and status). */
export function failureKindOf(error: unknown): FailureKind {
  if (!(error instanceof GitHubError)) return "other";
  switch (error.kind) {
    case "network":
      return "network";
    case "timeout":
      return "timeout";
    case "bad-body":
      return "bad-body";
    case "graphql":
      return "graphql";
    case "aborted":
      return "other";
    case "http":
      break;
  }
  const status = error.status;
  if (status === 429 || / rate limited after /.test(error.message)) return "rate-limited";
  if (status === 401) return "auth";
  if (status === 403) return /SAML|SSO|single sign-on/i.test(error.message) ? "sso" : "forbidden";
  if (status === 404) return "not-found";
  if (status !== undefined && status >= 500) return "server";
  return "request";
}

/** One failure, as the status files keep it. */
export interface LastError {
  kind: FailureKind;
  message: string;
  /** ISO time. */
  at: string;
}

/** A failure's line: `SUMMARY: REMEDY — MESSAGE`. */
export function failureLine(kind: FailureKind, message: string): string {
  const f = FAILURES[kind];
  return `${f.summary}: ${f.remedy} — ${message}`;
}

/** How often one kind of failure is said again on stderr while it lasts. */
export const WARN_EVERY_MS = 10 * 60_000;

/** How often a degradation (a file that cannot be written) is said again while it lasts. */
export const DEGRADED_EVERY_MS = 60_000;

/** Options of {@linkcode Trouble}. */
export interface TroubleOptions {
  /** What each line on stderr starts with: `poll: warning`, `poll: error`. */
  prefix: string;
  /** Writes one line (no newline) to stderr. */
  warn: (line: string) => void;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** Default {@linkcode WARN_EVERY_MS}. */
  warnEveryMs?: number;
  /** How often a degradation is said again while it lasts; default {@linkcode DEGRADED_EVERY_MS}. */
  degradedEveryMs?: number;
  /** Told after the last error or the degraded reasons changed (to write the status file). */
  onChange?: () => void;
}

/** A daemon's failures: warned about (rate-limited per kind), the last one kept, degradations. */
export class Trouble {
  readonly #o: TroubleOptions;
  readonly #now: () => number;
  readonly #said = new Map<string, number>();
  readonly #degraded = new Map<string, string>();
  #last: LastError | undefined;

  constructor(opts: TroubleOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** The last failure, if any. */
  get lastError(): LastError | undefined {
    return this.#last;
  }

  /** Why the daemon is degraded now (empty: it is not). */
  get reasons(): string[] {
    return [...this.#degraded.values()];
  }

  /**
   * Notes a failure: kept as the last error, and said on stderr unless its kind (or `key`, when
   * one kind has several sources) was said less than `warnEveryMs` ago. Returns whether it was.
   */
  failed(kind: FailureKind, message: string, opts: { key?: string } = {}): boolean {
    this.#last = { kind, message, at: new Date(this.#now()).toISOString() };
    const said = this.say(opts.key ?? kind, failureLine(kind, message));
    this.#o.onChange?.();
    return said;
  }

  /**
   * Says `line` on stderr (prefixed) unless `key` was said less than `warnEveryMs` ago
   * (`degradedEveryMs` for a `degraded:` key).
   */
  say(key: string, line: string): boolean {
    const everyMs = key.startsWith("degraded:")
      ? this.#o.degradedEveryMs ?? DEGRADED_EVERY_MS
      : this.#o.warnEveryMs ?? WARN_EVERY_MS;
    const now = this.#now();
    const at = this.#said.get(key);
    if (at !== undefined && now - at < everyMs) return false;
    this.#said.set(key, now);
    try {
      this.#o.warn(`${this.#o.prefix}: ${line}`);
    } catch { /* stderr gone: nothing to do */ }
    return true;
  }

  /**
   * Marks the daemon degraded for `key` while `message` is not `undefined` (which clears it): the
   * reason is kept, the failure is the last error, and it is said on stderr at most once every
   * {@linkcode DEGRADED_EVERY_MS} while it lasts (`say: false`: the caller says it itself).
   */
  degrade(
    key: string,
    kind: FailureKind,
    message: string | undefined,
    opts: { say?: boolean } = {},
  ): void {
    if (message === undefined) {
      if (this.#degraded.delete(key)) this.#o.onChange?.();
      return;
    }
    if (opts.say !== false) {
      this.say(`degraded:${key}`, failureLine(kind, message));
    }
    const known = this.#degraded.has(key);
    this.#degraded.set(key, `${FAILURES[kind].summary}: ${message}`);
    // a key already degraded is no change (its writer failing again must not write again)
    if (known) return;
    this.#last = { kind, message, at: new Date(this.#now()).toISOString() };
    this.#o.onChange?.();
  }

  /** Notes a failure of any error, by its kind. */
  error(error: unknown, opts: { key?: string } = {}): boolean {
    return this.failed(failureKindOf(error), messageOf(error), opts);
  }
}

/** A rate-limit wait at least this long is said on stderr and kept in the status file. */
export const SAY_RATE_WAIT_MS = 10_000;

/** A rate-limit wait longer than {@linkcode SAY_RATE_WAIT_MS}, as the status files keep it. */
export interface RateLimitWait {
  /** ISO time the wait began. */
  at: string;
  /** ISO time GitHub said the limit lifts (the reset, or `Retry-After`). */
  until: string;
  waitMs: number;
  /** `rate-limit-reset`, `retry-after` or `secondary`. */
  reason: string;
}

/**
 * The long rate-limit wait a `github.rate_limited` event's fields announce (undefined when it is
 * {@linkcode SAY_RATE_WAIT_MS} or shorter), and the line that says it.
 */
export function longRateWait(
  fields: Record<string, unknown> | undefined,
  now: number = Date.now(),
): { wait: RateLimitWait; line: string } | undefined {
  const ms = Number(fields?.wait_ms);
  if (!Number.isFinite(ms) || ms <= SAY_RATE_WAIT_MS) return undefined;
  const until = typeof fields?.until === "string" ? fields.until : new Date(now + ms).toISOString();
  const reason = String(fields?.reason ?? "rate-limit-reset");
  const what = `${fields?.method ?? "GET"} ${fields?.path ?? ""}`.trim();
  return {
    wait: { at: new Date(now).toISOString(), until, waitMs: Math.round(ms), reason },
    line: `GitHub's rate limit is reached: waiting ${Math.ceil(ms / 1000)} s, until ${until} ` +
      `(${reason}; ${what}); nothing is lost, the work resumes then`,
  };
}
