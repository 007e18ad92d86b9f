/**
 * The status page's routes, one handler `(Request) → Response` over its parts (the snapshot
 * reader, the event streams, the controls, the terminal seam, the assets); `server.ts` only
 * serves it. Reads are `GET` (and `HEAD`) and change nothing; controls are `POST` only, each
 * checked by `guard.ts` (Origin, CSRF token, JSON) and answered with what the CLI verb said.
 *
 * | route                                   | answer                                                      |
 * | --------------------------------------- | ----------------------------------------------------------- |
 * | `GET /`, `GET /items/REF`               | the page (one document; the item view is a client route)    |
 * | `GET /assets/NAME`                      | an embedded asset                                           |
 * | `GET /api/v1/state`                     | `UiState` (`schema/ui/state.json`)                          |
 * | `GET /api/v1/items/REF`                 | `ItemView` (`schema/ui/item.json`), 404 when unknown        |
 * | `GET /api/v1/events`                    | server-sent events of the log (`_sse.ts`)                   |
 * | `GET /api/v1/items/REF/terminal`        | the terminal seam (WebSocket); 404 off/absent, 409 no pane  |
 * | `POST /api/v1/items/REF/reply`          | `{text}` → `the-loop reply`                                 |
 * | `POST /api/v1/items/REF/verdict`        | `{outcome}` → `the-loop verdict`                            |
 * | `POST /api/v1/items/REF/pause`, `resume`, `stop` | → `the-loop sessions pause|resume|stop`            |
 * | `POST /api/v1/suspensions/ID/resume`    | → `the-loop hooks resume ID`                                |
 *
 * A control answers 200 `{ok: true, message}` when its verb exits 0, 409 `{ok: false, message}`
 * when it refused or failed, 400 for a malformed body, 403 for a CSRF or origin problem, 501
 * when the server was started without controls.
 *
 * @module
 */
import type { EventSink } from "../events/mod.ts";
import { messageOf } from "../errors.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { COOKIE, hasToken, hostIsLoopback, postProblem, sameSecret } from "./guard.ts";
import type { EventStreams } from "./_sse.ts";
import { itemView, snapshot, type SnapshotInput } from "./snapshot.ts";
import type { Asset, ControlRequest, TerminalMode, TerminalSeam, UiControls } from "./types.ts";

/** What the handler works with. */
export interface RouteDeps {
  read(): Promise<SnapshotInput>;
  now(): Date;
  streams: EventStreams;
  assets: Readonly<Record<string, Asset>>;
  /** The page, with the CSRF token in it. */
  page: string;
  csrf: string;
  controls?: UiControls;
  terminal?: TerminalSeam;
  terminalMode: TerminalMode;
  tmuxArgs: string[];
  /** Exposed pages: the token, and the cookie value made from it. */
  auth?: { token: string; cookie: string };
  events?: EventSink;
}

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; " +
  "connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; " +
  "form-action 'none'";

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...SECURITY_HEADERS,
    },
  });
}

function text(body: string, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body + "\n", {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...SECURITY_HEADERS, ...headers },
  });
}

/** The work item a path segment names (URL-encoded), or undefined. */
function refOf(segment: string): string | undefined {
  try {
    return parseWorkItem(decodeURIComponent(segment))?.ref;
  } catch {
    return undefined;
  }
}

const SESSION_ACTIONS = new Set(["pause", "resume", "stop"]);

/** The control a POST's path and body ask for, or the reason it is malformed. */
function controlOf(parts: string[], body: Record<string, unknown>): ControlRequest | string {
  const str = (k: string) => typeof body[k] === "string" ? (body[k] as string).trim() : "";
  if (parts[0] === "suspensions" && parts.length === 3 && parts[2] === "resume") {
    const id = decodeURIComponent(parts[1]);
    return /^[A-Za-z0-9._-]+$/.test(id) ? { action: "resume-suspension", id } : "not an id";
  }
  if (parts[0] !== "items" || parts.length !== 3) return "no such control";
  const ref = refOf(parts[1]);
  if (!ref) return "not a work item ref (github:OWNER/REPO#N, URL-encoded)";
  const action = parts[2];
  if (action === "reply") {
    return str("text") ? { action, ref, text: body.text as string } : "the reply is empty";
  }
  if (action === "verdict") {
    return str("outcome") ? { action, ref, outcome: str("outcome") } : "no outcome given";
  }
  if (SESSION_ACTIONS.has(action)) return { action: action as "pause", ref };
  return "no such control";
}

/** The handler of the module doc. */
export function routes(d: RouteDeps): (req: Request) => Promise<Response> {
  return async (req) => {
    const url = new URL(req.url);
    if (!d.auth && !hostIsLoopback(req)) {
      return text("this page answers only to a loopback host name (127.0.0.1, localhost)", 421);
    }
    if (d.auth) {
      const login = url.searchParams.get("token");
      if (req.method === "GET" && login !== null) {
        if (!sameSecret(login, d.auth.token)) {
          return text("wrong token", 401);
        }
        url.searchParams.delete("token");
        return new Response(null, {
          status: 303,
          headers: {
            location: url.pathname + url.search,
            "set-cookie": `${COOKIE}=${d.auth.cookie}; HttpOnly; SameSite=Strict; Path=/`,
            ...SECURITY_HEADERS,
          },
        });
      }
      if (!hasToken(req, d.auth.token, d.auth.cookie)) {
        return text(
          "this page needs its token: open /?token=… once, or send Authorization: Bearer …",
          401,
          { "www-authenticate": 'Bearer realm="the-loop"' },
        );
      }
    }
    const parts = url.pathname.split("/").filter((p) => p !== "");
    if (req.method === "POST") {
      if (parts[0] !== "api" || parts[1] !== "v1") return text("not found", 404);
      return await control(d, req, parts.slice(2));
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return text("method not allowed", 405, { allow: "GET, HEAD, POST" });
    }
    try {
      return await read(d, req, url, parts);
    } catch (error) {
      return json({ error: `the state could not be read: ${messageOf(error)}` }, 500);
    }
  };
}

async function read(d: RouteDeps, req: Request, url: URL, parts: string[]): Promise<Response> {
  if (parts.length === 0 || (parts[0] === "items" && parts.length === 2)) {
    return new Response(d.page, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy": PAGE_CSP,
        ...SECURITY_HEADERS,
      },
    });
  }
  if (url.pathname === "/favicon.ico") return new Response(null, { status: 204 });
  if (parts[0] === "assets") {
    const asset = d.assets[url.pathname];
    if (!asset) return text("no such asset", 404);
    return new Response(asset.body, {
      headers: { "content-type": asset.type, "cache-control": "no-cache", ...SECURITY_HEADERS },
    });
  }
  if (parts[0] !== "api" || parts[1] !== "v1") return text("not found", 404);
  const [what, segment, tail] = parts.slice(2);
  if (what === "state" && parts.length === 3) {
    return json(snapshot(await d.read(), { now: d.now() }));
  }
  if (what === "events" && parts.length === 3) return await d.streams.open(req);
  if (what === "items" && segment !== undefined) {
    const ref = refOf(segment);
    if (!ref) return json({ error: "not a work item ref (github:OWNER/REPO#N, URL-encoded)" }, 400);
    const view = itemView(await d.read(), ref, { now: d.now() });
    if (parts.length === 4) return view ? json(view) : json({ error: `no item ${ref}` }, 404);
    if (tail === "terminal" && parts.length === 5) return await terminal(d, req, ref, view);
  }
  return text("not found", 404);
}

async function terminal(
  d: RouteDeps,
  req: Request,
  ref: string,
  view: ReturnType<typeof itemView>,
): Promise<Response> {
  if (d.terminalMode === "off" || !d.terminal) {
    return text("the web terminal is off (ui.terminal)", 404);
  }
  const session = view?.item.session;
  if (!view?.terminal.available || !session) {
    return text(`${ref} has no live tmux session to show`, 409);
  }
  return await d.terminal(req, {
    ref,
    tmuxArgs: d.tmuxArgs,
    session: session.tmuxTarget,
    mode: d.terminalMode,
  });
}

async function control(d: RouteDeps, req: Request, parts: string[]): Promise<Response> {
  const problem = postProblem(req, d.csrf);
  if (problem) return json({ ok: false, message: problem }, 403);
  let body: Record<string, unknown>;
  try {
    const parsed = await req.json();
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error();
    body = parsed;
  } catch {
    return json({ ok: false, message: "the body is not a JSON object" }, 400);
  }
  const asked = controlOf(parts, body);
  if (typeof asked === "string") return json({ ok: false, message: asked }, 400);
  if (!d.controls) {
    return json({
      ok: false,
      message: "this page was started without its controls; use the CLI verbs",
    }, 501);
  }
  const target = asked.action === "resume-suspension"
    ? { suspension: asked.id }
    : { work_item: asked.ref };
  let answer;
  try {
    answer = await d.controls(asked);
  } catch (error) {
    answer = { ok: false, message: messageOf(error) };
  }
  d.events?.emit("ui.control", { action: asked.action, ...target, ok: answer.ok });
  return json(answer, answer.ok ? 200 : 409);
}
