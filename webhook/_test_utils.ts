/**
 * Test helpers for webhook/: signed requests and a recording {@linkcode RouteSink}.
 *
 * @module
 */
import type { IngressEvent, RouteResult, RouteSink } from "../ingress/mod.ts";

export const SECRET = "s3cret-for-tests";
const encoder = new TextEncoder();

/** `sha256=<hex>` of `body` under `secret`, computed independently of the receiver's code. */
export async function sign(
  body: string | Uint8Array<ArrayBuffer>,
  secret = SECRET,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
  return `sha256=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** A GitHub-like delivery request for `url`. */
export async function delivery(
  url: string,
  opts: {
    payload?: unknown;
    body?: string;
    event?: string;
    deliveryId?: string;
    secret?: string | null;
    signature?: string;
  } = {},
): Promise<Request> {
  const body = opts.body ?? JSON.stringify(opts.payload ?? { action: "created", n: 1 });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-github-event": opts.event ?? "issue_comment",
    "x-github-delivery": opts.deliveryId ?? crypto.randomUUID(),
  };
  if (opts.signature !== undefined) headers["x-hub-signature-256"] = opts.signature;
  else if (opts.secret !== null) headers["x-hub-signature-256"] = await sign(body, opts.secret);
  return new Request(url, { method: "POST", headers, body });
}

/** A sink that records what it is handed; `gate` (when set) holds every route until resolved. */
export class RecordingSink implements RouteSink {
  readonly routed: IngressEvent[] = [];
  gate?: Promise<void>;
  fail?: (event: IngressEvent) => boolean;
  #waiters: { n: number; resolve: () => void }[] = [];

  async route(event: IngressEvent): Promise<RouteResult> {
    if (this.gate) await this.gate;
    if (this.fail?.(event)) throw new Error(`route of ${event.deliveryId} blew up`);
    this.routed.push(event);
    this.#waiters = this.#waiters.filter((w) => (w.n <= this.routed.length ? w.resolve() : true));
    return { status: "routed", outcomes: [] };
  }

  /** Resolves once `n` events were routed. */
  until(n: number): Promise<void> {
    if (this.routed.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

/** A promise and its resolver. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
