/**
 * Signed webhook deliveries, as GitHub sends them: `X-Hub-Signature-256: sha256=<HMAC-SHA256 of
 * the body>`, `X-GitHub-Event`, `X-GitHub-Delivery`.
 *
 * @module
 */

/** Options of {@linkcode sendWebhook}. */
export interface WebhookOptions {
  /** The webhook secret; without one, no signature header is sent. */
  secret?: string;
  /** Default: a fresh UUID. */
  deliveryId?: string;
  /** Extra or overriding headers (e.g. a wrong signature). */
  headers?: Record<string, string>;
}

/** The answer to a delivery. */
export interface WebhookResult {
  status: number;
  body: string;
  deliveryId: string;
}

/** `sha256=<hex>`: the `X-Hub-Signature-256` of `body` under `secret`. */
export async function signature(secret: string, body: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** POSTs one delivery of `event` with `payload` to `url`. */
export async function sendWebhook(
  url: string,
  event: string,
  payload: unknown,
  opts: WebhookOptions = {},
): Promise<WebhookResult> {
  const body = JSON.stringify(payload);
  const deliveryId = opts.deliveryId ?? crypto.randomUUID();
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/fake",
    "x-github-event": event,
    "x-github-delivery": deliveryId,
    "x-github-hook-id": "1",
  };
  if (opts.secret !== undefined) {
    headers["x-hub-signature-256"] = await signature(opts.secret, body);
  }
  const res = await fetch(url, { method: "POST", headers: { ...headers, ...opts.headers }, body });
  return { status: res.status, body: await res.text(), deliveryId };
}
