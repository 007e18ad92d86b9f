/**
 * Who may reach the page and what a POST must carry, pure functions of the request:
 *
 * | check          | rule                                                                                     |
 * | -------------- | ---------------------------------------------------------------------------------------- |
 * | exposure       | a host that is not loopback is refused unless `ui.exposed: true` and a token is given   |
 * | Host header    | not exposed: a loopback name (127.0.0.1, localhost, [::1]) — no DNS rebinding           |
 * | token          | exposed: every request, `Authorization: Bearer T` or the session cookie                |
 * | login          | exposed: `GET /?token=T` sets the cookie (an HMAC of T, never T) and redirects to `/`   |
 * | POST           | `Origin` equal to the page's own, `X-The-Loop-CSRF` equal to the page's token, JSON     |
 *
 * Tokens are compared in constant time; the token is never put in a response or a message.
 *
 * @module
 */

/** The header a POST carries the page's CSRF token in. */
export const CSRF_HEADER = "x-the-loop-csrf";
/** The session cookie's name (exposed pages). */
export const COOKIE = "the_loop_ui";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Whether `host` (a bind address or a Host header's name) is the loopback interface. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Why the page may not be served on `host`: a non-loopback host needs `ui.exposed: true` and a
 * token; undefined when it may.
 */
export function exposureProblem(
  o: { host: string; exposed: boolean; token: string | undefined; tokenEnv: string },
): string | undefined {
  if (isLoopback(o.host)) return undefined;
  if (!o.exposed) {
    return `ui: refusing to serve the status page on ${o.host}, which is not loopback: its ` +
      "controls act on your sessions; set ui.exposed: true and a token in $" + o.tokenEnv +
      ", or use ui.host: 127.0.0.1";
  }
  if (!o.token) {
    return `ui: ui.exposed is true but $${o.tokenEnv} holds no token: an exposed page needs ` +
      "one (every request must carry it); set the variable, or use ui.host: 127.0.0.1";
  }
  return undefined;
}

/** `a === b` in time that depends only on the lengths. */
export function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** The session cookie's value for `token`: base64url HMAC-SHA256(token, a fixed label). */
export async function cookieValueOf(token: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(token),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("the-loop ui"));
  return btoa(String.fromCharCode(...new Uint8Array(mac)))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

/** Whether `req` carries the token (bearer) or the cookie made from it. */
export function hasToken(req: Request, token: string, cookie: string): boolean {
  const auth = req.headers.get("authorization") ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
  if (bearer !== undefined) return sameSecret(bearer, token);
  const given = cookieOf(req, COOKIE);
  return given !== undefined && sameSecret(given, cookie);
}

/** Whether the Host header names a loopback host (a page bound to loopback answers no other). */
export function hostIsLoopback(req: Request): boolean {
  const host = req.headers.get("host") ?? "";
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return isLoopback(name);
}

/** Why a POST is refused (a CSRF or origin problem), or undefined when it may go on. */
export function postProblem(req: Request, csrf: string): string | undefined {
  const origin = req.headers.get("origin");
  const host = req.headers.get("host");
  if (!origin || !host) return "a control needs the Origin header of the page it was sent from";
  let ok = false;
  try {
    ok = new URL(origin).host === host;
  } catch { /* not a URL */ }
  if (!ok) return "a control from another origin is refused";
  if (!sameSecret(req.headers.get(CSRF_HEADER) ?? "", csrf)) {
    return "the control's CSRF token is missing or stale: reload the page";
  }
  if (!(req.headers.get("content-type") ?? "").startsWith("application/json")) {
    return "a control's body is JSON (Content-Type: application/json)";
  }
  return undefined;
}
