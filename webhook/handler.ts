/**
 * The receiver's HTTP handler: a pure `(Request) → Response` over {@linkcode HandlerOptions},
 * testable without a port.
 *
 * | request                                              | status | body                          |
 * | ---------------------------------------------------- | ------ | ----------------------------- |
 * | `GET /health`, `/healthz` (trailing `/` allowed)     | 200    | `{"status":"ok"}`             |
 * | POST to the path: verified, JSON object, in the inbox | 202   | `{"status":"accepted"}`       |
 * | POST to the path: signature missing/malformed/wrong  | 401    | `{"status":"invalid signature"}` |
 * | POST to the path: body not a JSON object             | 400    | `{"status":"invalid payload"}` |
 * | POST to the path: body over the cap                  | 413    | `{"status":"payload too large"}` |
 * | POST to the path: routing queue full (no inbox)      | 503    | `{"status":"busy"}` + `Retry-After` |
 * | POST to the path: the inbox full or not writable     | 503    | `{"status":"busy"}` + `Retry-After` |
 * | anything else                                        | 404    | `{"status":"not found"}`      |
 *
 * Neither the secret nor the body is ever put in an event. Refusals are written at most once a
 * second per reason (`_rejection_log.ts`), with a count of those left out.
 *
 * @module
 */
import type { EventSink, Level } from "../events/mod.ts";
import type { IngressEvent } from "../ingress/mod.ts";
import { type CappedBody, MAX_BODY_BYTES, readCapped } from "./body.ts";
import { messageOf } from "../errors.ts";
import type { SignatureVerifier } from "./signature.ts";
import { RejectionLog } from "./_rejection_log.ts";

/**
 * What becomes of an accepted delivery: `false` when it could not be queued (503), or the reason
 * the durable inbox refused it (503: `inbox-full`, `inbox-failed`); the answer waits for a
 * promise (the inbox's sync). `body` is the text the payload was parsed from, its size in bytes
 * and the bytes themselves (an accepter on another thread hands the text over and parses it
 * there: cheaper than copying the parsed payload).
 */
export type Accept = (
  event: IngressEvent,
  body: { text: string; bytes: number; raw: Uint8Array },
) => AcceptAnswer | Promise<AcceptAnswer>;

/** What an {@linkcode Accept} answers. */
export type AcceptAnswer = boolean | "inbox-full" | "inbox-failed";

/** Options of {@linkcode createHandler}. */
export interface HandlerOptions {
  /** The path deliveries are POSTed to, e.g. `/gh-webhook`. */
  path: string;
  /** Checks `X-Hub-Signature-256`; absent: deliveries are accepted unverified. */
  verifier?: SignatureVerifier;
  /** Takes each accepted delivery (queues it for routing); it must not wait for routing. */
  accept: Accept;
  events: EventSink;
  /** The body cap in bytes; default {@linkcode MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /** The `Retry-After` seconds of a 503; default 30. */
  retryAfterSeconds?: number;
  /**
   * Why the daemon is degraded now (a file it cannot write): `/health` then answers 503
   * `{"status":"degraded","reasons":[…]}`. Absent or empty: 200.
   */
  health?: () => readonly string[];
  /** The clock (ms) of the refusal records' rate limit (`_rejection_log.ts`); for tests. */
  now?: () => number;
}

/** Why a request was refused (`webhook.rejected`'s `reason`). */
export type RejectReason =
  | "invalid-signature"
  | "invalid-payload"
  | "too-large"
  | "queue-full"
  | "inbox-full"
  | "inbox-failed"
  | "not-found"
  | "internal-error";

const HEALTH = new Set(["/health", "/healthz", "/health/", "/healthz/"]);
const JSON_HEADERS = { "content-type": "application/json" };
const loose = new TextDecoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * `bytes` as UTF-8 text; throws on bytes that are not UTF-8. The lenient decoder is several times
 * faster; only a text holding U+FFFD (a replacement, or a real one) is decoded again strictly.
 */
function utf8(bytes: Uint8Array): string {
  const text = loose.decode(bytes);
  return text.includes("\uFFFD") ? strict.decode(bytes) : text;
}

/** The path of a request URL (`http://host:port/path?query`, or `/path?query`), without parsing it all. */
function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.search(/[?#]/);
  return url.slice(start, end < 0 ? undefined : end);
}

const LEVELS: Record<RejectReason, Level> = {
  "invalid-signature": "warning",
  "invalid-payload": "error",
  "too-large": "warning",
  "queue-full": "warning",
  "inbox-full": "warning",
  "inbox-failed": "error",
  "not-found": "debug",
  "internal-error": "error",
};

const BODIES: Record<number, string> = {
  200: JSON.stringify({ status: "ok" }),
  202: JSON.stringify({ status: "accepted" }),
  400: JSON.stringify({ status: "invalid payload" }),
  401: JSON.stringify({ status: "invalid signature" }),
  404: JSON.stringify({ status: "not found" }),
  413: JSON.stringify({ status: "payload too large" }),
  500: JSON.stringify({ status: "error" }),
  503: JSON.stringify({ status: "busy" }),
};

/** An answer, before it is a `Response` (the HTTP server writes it as it is). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What the handler reads of a request: a `Request` is one; the HTTP server (`server.ts`) passes
 * a lighter one of its own, with the body already read under the cap.
 */
export interface Incoming {
  readonly method: string;
  /** The whole URL (`http://host/path?query`) or, from the server, the request target (`/path?query`). */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

function reply(status: number, headers: Record<string, string> = {}): Answer {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: BODIES[status] };
}

/** A header value fit for an event: at most 128 characters (it may come from anyone). */
function clip(value: string | null): string | null {
  return value === null ? null : value.slice(0, 128);
}

/** Builds the handler, over `Request` and `Response`. */
export function createHandler(opts: HandlerOptions): (req: Request) => Promise<Response> {
  const answer = createAnswerer(opts);
  return async (req) => {
    const a = await answer(req);
    return new Response(a.body, { status: a.status, headers: a.headers });
  };
}

/**
 * Builds the handler as the HTTP server uses it: `body`, when given, is the request's body read
 * under the cap (otherwise it is read from `req`, which must then be a `Request`).
 */
export function createAnswerer(
  opts: HandlerOptions,
): (req: Incoming, body?: CappedBody) => Promise<Answer> {
  const max = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const retryAfter = String(opts.retryAfterSeconds ?? 30);
  const rejections = new RejectionLog(opts.now);

  const reject = (
    req: Incoming,
    reason: RejectReason,
    status: number,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): Answer => {
    const admitted = rejections.admit(reason);
    if (admitted) {
      opts.events.emit("webhook.rejected", {
        reason,
        status,
        delivery_id: clip(req.headers.get("x-github-delivery")),
        gh_event: clip(req.headers.get("x-github-event")),
        suppressed: admitted.suppressed,
        ...extra,
      }, { level: LEVELS[reason] });
    }
    return reply(status, headers);
  };

  const post = async (req: Incoming, read?: CappedBody): Promise<Answer> => {
    const body = read ?? await readCapped(req as Request, max);
    if (!body.ok) {
      // the rest of the body is never read: the connection is closed, not drained
      return reject(req, "too-large", 413, {
        max_bytes: body.max ?? max,
        declared_bytes: body.declared ?? null,
      }, {
        connection: "close",
      });
    }
    const verified = opts.verifier !== undefined;
    if (
      opts.verifier &&
      !(await opts.verifier.verify(req.headers.get("x-hub-signature-256"), body.bytes))
    ) {
      return reject(req, "invalid-signature", 401);
    }
    let payload: unknown;
    let text: string;
    try {
      text = utf8(body.bytes);
      payload = JSON.parse(text);
    } catch {
      return reject(req, "invalid-payload", 400, { detail: "the body is not JSON" });
    }
    if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
      return reject(req, "invalid-payload", 400, { detail: "the body is not a JSON object" });
    }
    const ghEvent = req.headers.get("x-github-event") ?? "";
    // without an id GitHub's at-most-once bookkeeping has nothing to key on: make one up
    const deliveryId = req.headers.get("x-github-delivery") || `local-${crypto.randomUUID()}`;
    const record = payload as Record<string, unknown>;
    const event: IngressEvent = { ghEvent, deliveryId, via: "gh-webhook", payload: record };
    const bytes = body.bytes.length;
    const accepted = opts.accept(event, { text, bytes, raw: body.bytes });
    // awaited only when it is a promise: a plain answer keeps the record in this microtask, ahead
    // of the intake's hand-over (which flushes the records it goes with)
    const answer = accepted instanceof Promise ? await accepted : accepted;
    if (answer !== true) {
      const reason = answer === false ? "queue-full" : answer;
      return reject(req, reason, 503, {}, { "retry-after": retryAfter });
    }
    opts.events.emit("webhook.received", {
      gh_event: clip(ghEvent),
      action: typeof record.action === "string" ? record.action : "",
      delivery_id: clip(deliveryId),
      verified,
      bytes,
    });
    return reply(202);
  };

  return async (req: Incoming, body?: CappedBody): Promise<Answer> => {
    try {
      const pathname = pathOf(req.url);
      if ((req.method === "GET" || req.method === "HEAD") && HEALTH.has(pathname)) {
        const reasons = opts.health?.() ?? [];
        if (reasons.length === 0) return reply(200);
        return {
          status: 503,
          headers: { ...JSON_HEADERS },
          body: JSON.stringify({ status: "degraded", reasons }),
        };
      }
      if (req.method === "POST" && pathname === opts.path) return await post(req, body);
      return reject(req, "not-found", 404, {
        method: req.method.slice(0, 16),
        path: pathname.slice(0, 256),
      });
    } catch (error) {
      try {
        return reject(req, "internal-error", 500, {
          error: messageOf(error),
        });
      } catch {
        return reply(500);
      }
    }
  };
}
