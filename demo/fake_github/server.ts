/**
 * The fake GitHub's REST (and two GraphQL queries: closing issues, a comment's editor) over a {@linkcode World}: ETags and 304s,
 * `Link` pagination, rate-limit headers, injectable faults, a record of every request.
 *
 * @module
 */
import { delay } from "../../async/mod.ts";
import { GIT_PATH, type GitHttpOptions, serveGit } from "./git_http.ts";
import { type Json, publicView, type World } from "./world.ts";

/** One request the fake received (the `authorization` header left out). */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The parsed JSON body, for writes. */
  body?: Json;
  /** What the fake answered. */
  status: number;
}

/** What a fault does to a request it matches. */
export type FaultKind =
  | { kind: "status"; status: number; message?: string }
  | { kind: "delay"; ms: number }
  | { kind: "truncate" }
  | { kind: "not-json" }
  | {
    kind: "rate-limit";
    status?: 403 | 429;
    retryAfter?: number;
    /** Epoch seconds for `X-RateLimit-Reset` (sent with `X-RateLimit-Remaining: 0`). */
    reset?: number;
    message?: string;
  };

/** A fault for the next `times` requests matching `path` (and `method`, when given). */
export type Fault = FaultKind & { path: string | RegExp; method?: string; times?: number };

interface Armed {
  fault: Fault;
  left: number;
}

export interface ServerState {
  world: World;
  token?: string;
  requests: RecordedRequest[];
  faults: Armed[];
  rate: { limit: number; remaining: number; reset: number };
  baseUrl: () => string;
  /** The login writes are made as (the token's user). */
  actor: () => string;
  /** More tokens, each the login of its user (a person's token: writes made as them). */
  users?: ReadonlyMap<string, string>;
  /** Serve git repositories at `/<owner>/<repo>.git` (see `git_http.ts`). */
  git?: GitHttpOptions;
}

const enc = new TextEncoder();

async function etagOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", enc.encode(text));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `W/"${hex.slice(0, 40)}"`;
}

function rateHeaders(s: ServerState): Record<string, string> {
  return {
    "x-ratelimit-limit": String(s.rate.limit),
    "x-ratelimit-remaining": String(s.rate.remaining),
    "x-ratelimit-reset": String(s.rate.reset),
    "x-ratelimit-used": String(s.rate.limit - s.rate.remaining),
    "x-ratelimit-resource": "core",
  };
}

function json(status: number, body: Json, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

const notFound = () =>
  json(404, {
    message: "Not Found",
    documentation_url: "https://docs.github.com/rest",
    status: "404",
  });

function takeFault(s: ServerState, method: string, path: string): Fault | undefined {
  for (const a of s.faults) {
    const f = a.fault;
    if (a.left <= 0) continue;
    if (f.method && f.method.toUpperCase() !== method) continue;
    if (typeof f.path === "string" ? f.path !== path : !f.path.test(path)) continue;
    a.left--;
    return f;
  }
  return undefined;
}

async function applyFault(f: Fault, req: Request, s: ServerState): Promise<Response | undefined> {
  switch (f.kind) {
    case "status":
      return json(f.status, { message: f.message ?? `fault ${f.status}` }, rateHeaders(s));
    case "delay":
      await delay(f.ms, { signal: req.signal }).catch(() => {}); // a client gone: answer now
      return undefined; // then answer normally (if the client still waits)
    case "truncate": {
      const text = '[{"id": 1, "number": 1, "title": "cut sh';
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode(text));
          c.error(new Error("fake GitHub: connection cut"));
        },
      });
      return new Response(body, {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8", ...rateHeaders(s) },
      });
    }
    case "not-json":
      return new Response("<html><body>Unicorn! 🦄</body></html>", {
        status: 200,
        headers: { "content-type": "text/html", ...rateHeaders(s) },
      });
    case "rate-limit": {
      const headers: Record<string, string> = { ...rateHeaders(s) };
      if (f.retryAfter !== undefined) headers["retry-after"] = String(f.retryAfter);
      if (f.reset !== undefined) {
        headers["x-ratelimit-remaining"] = "0";
        headers["x-ratelimit-reset"] = String(f.reset);
      }
      const message = f.message ??
        (f.reset !== undefined
          ? "API rate limit exceeded for user."
          : "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.");
      return json(f.status ?? 403, {
        message,
        documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
      }, headers);
    }
  }
}

/** Sorts, filters and pages a list; sets `Link`. */
function page(
  s: ServerState,
  url: URL,
  items: Json[],
): { body: Json[]; link?: string } {
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get("per_page") ?? 30) || 30));
  const pageNo = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const body = items.slice((pageNo - 1) * perPage, pageNo * perPage);
  const at = (n: number) => {
    const u = new URL(url.pathname + url.search, s.baseUrl());
    u.searchParams.set("page", String(n));
    return u.href;
  };
  const rels: string[] = [];
  if (pageNo < last) rels.push(`<${at(pageNo + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
  if (pageNo > 1) rels.push(`<${at(1)}>; rel="first"`, `<${at(pageNo - 1)}>; rel="prev"`);
  return { body, link: rels.length ? rels.join(", ") : undefined };
}

const since = (url: URL, field: string) => (x: Json) => {
  const v = url.searchParams.get("since");
  return !v || Date.parse(x[field]) >= Date.parse(v);
};

type Handler = (m: RegExpMatchArray, url: URL, body: Json) => Response | Json[] | Json;

/** Routes: `[method, pattern, handler]`. A handler returns a Response, or a GET's JSON. */
function routes(s: ServerState, actor: string): [string, RegExp, Handler][] {
  const w = s.world;
  const R = "/repos/([^/]+)/([^/]+)";
  const item = (m: RegExpMatchArray) => w.repos.get(`${m[1]}/${m[2]}`)?.items.get(Number(m[3]));
  const list = (url: URL, xs: Json[]): Response | Json[] => {
    const p = page(s, url, xs);
    return Object.assign(p.body, { __link: p.link });
  };
  return [
    ["GET", new RegExp(`^${R}/issues$`), (m, url) => {
      const repo = w.repos.get(`${m[1]}/${m[2]}`);
      if (!repo) return notFound();
      const state = url.searchParams.get("state") ?? "open";
      const labels = (url.searchParams.get("labels") ?? "").split(",").map((l) => l.trim())
        .filter((l) => l);
      const sort = url.searchParams.get("sort") === "updated" ? "updated_at" : "created_at";
      const asc = url.searchParams.get("direction") === "asc";
      const xs = [...repo.items.values()].map((i) => i.issue)
        .filter((i) => state === "all" || i.state === state)
        .filter((i) => labels.every((l) => i.labels.some((x: Json) => x.name === l)))
        .filter(since(url, "updated_at"))
        .sort((a, b) =>
          (asc ? 1 : -1) * (Date.parse(a[sort]) - Date.parse(b[sort]) || a.number - b.number)
        );
      return list(url, xs);
    }],
    ["GET", new RegExp(`^${R}/issues/(\\d+)$`), (m) => item(m)?.issue ?? notFound()],
    ["GET", new RegExp(`^${R}/issues/(\\d+)/comments$`), (m, url) => {
      const it = item(m);
      return it ? list(url, it.comments.filter(since(url, "updated_at"))) : notFound();
    }],
    ["POST", new RegExp(`^${R}/issues/(\\d+)/comments$`), (m, _url, body) => {
      if (!item(m)) return notFound();
      if (typeof body?.body !== "string") return json(422, { message: "Validation Failed" });
      return json(201, w.addComment(`${m[1]}/${m[2]}`, Number(m[3]), body.body, actor));
    }],
    ["PATCH", new RegExp(`^${R}/issues/(\\d+)$`), (m, _url, body) => {
      const it = item(m);
      if (!it) return notFound();
      const repo = `${m[1]}/${m[2]}`;
      const n = Number(m[3]);
      if (body?.state === "closed" && it.issue.state !== "closed") w.close(repo, n, { by: actor });
      else if (body?.state === "open" && it.issue.state !== "open") {
        w.reopen(repo, n, { by: actor });
      } else if (body?.state !== undefined && body.state !== "open" && body.state !== "closed") {
        return json(422, { message: "Validation Failed" });
      }
      return json(200, it.issue);
    }],
    [
      "GET",
      new RegExp(`^${R}/pulls/(\\d+)$`),
      (m) => item(m)?.pull ? w.pullPayload(`${m[1]}/${m[2]}`, Number(m[3])) : notFound(),
    ],
    ["GET", new RegExp(`^${R}/pulls/(\\d+)/reviews$`), (m, url) => {
      const it = item(m);
      return it?.pull ? list(url, it.pull.reviews) : notFound();
    }],
    ["GET", new RegExp(`^${R}/pulls/(\\d+)/comments$`), (m, url) => {
      const it = item(m);
      return it?.pull
        ? list(url, it.pull.reviewComments.filter(since(url, "updated_at")))
        : notFound();
    }],
    ["POST", new RegExp(`^${R}/issues/(\\d+)/reactions$`), (m, _u, body) => {
      const it = item(m);
      return it ? reacted(w.react(it, body?.content, actor)) : notFound();
    }],
    ["POST", new RegExp(`^${R}/issues/comments/(\\d+)/reactions$`), (m, _u, body) => {
      const c = findComment(s, `${m[1]}/${m[2]}`, Number(m[3]), "issue");
      return c ? reacted(w.react(c, body?.content, actor)) : notFound();
    }],
    ["POST", new RegExp(`^${R}/pulls/comments/(\\d+)/reactions$`), (m, _u, body) => {
      const c = findComment(s, `${m[1]}/${m[2]}`, Number(m[3]), "review");
      return c ? reacted(w.react(c, body?.content, actor)) : notFound();
    }],
    ["POST", new RegExp(`^${R}/issues/(\\d+)/labels$`), (m, _u, body) => {
      if (!item(m)) return notFound();
      const names = Array.isArray(body) ? body : body?.labels;
      if (!Array.isArray(names)) return json(422, { message: "Validation Failed" });
      return json(200, w.addLabels(`${m[1]}/${m[2]}`, Number(m[3]), names.map(String)));
    }],
    ["DELETE", new RegExp(`^${R}/issues/(\\d+)/labels/([^/]+)$`), (m) => {
      if (!item(m)) return notFound();
      const ok = w.removeLabel(`${m[1]}/${m[2]}`, Number(m[3]), decodeURIComponent(m[4]));
      return ok ? json(200, item(m)!.issue.labels) : json(404, { message: "Label does not exist" });
    }],
    ["GET", new RegExp(`^${R}/collaborators/([^/]+)/permission$`), (m) => {
      const repo = w.repos.get(`${m[1]}/${m[2]}`);
      const login = decodeURIComponent(m[3]);
      if (!repo || !w.users.has(login)) return notFound();
      const permission = repo.collaborators.get(login) ?? "none";
      return { permission, role_name: permission, user: w.user(login) };
    }],
    ["POST", /^\/graphql$/, (_m, _u, body) => graphql(s, body)],
    // as GitHub's: free (it does not count against the limit), 401 for a bad token
    ["GET", /^\/rate_limit$/, () => {
      const core = { ...s.rate, used: s.rate.limit - s.rate.remaining, resource: "core" };
      return json(200, { resources: { core }, rate: core });
    }],
  ];
}

function reacted(r: { reaction: Json; created: boolean }): Response {
  return json(r.created ? 201 : 200, r.reaction);
}

function findComment(s: ServerState, repo: string, id: number, kind: "issue" | "review"): Json {
  for (const it of s.world.repos.get(repo)?.items.values() ?? []) {
    const xs = kind === "issue" ? it.comments : it.pull?.reviewComments ?? [];
    const c = xs.find((x) => x.id === id);
    if (c) return c;
  }
  return undefined;
}

function graphql(s: ServerState, body: Json): Response {
  const q = String(body?.query ?? "");
  const v = body?.variables ?? {};
  if (/nodes\(ids: \$ids\) \{ \.\.\. on Comment \{ id editor \{ login \} \} \}/.test(q)) {
    const nodes = (v.ids as string[]).map((id) => {
      const editor = s.world.editorOf(id);
      return { id, editor: editor ? { login: editor } : null };
    });
    return json(200, { data: { nodes } });
  }
  if (!/closingIssuesReferences/.test(q)) {
    return json(200, { errors: [{ message: "fake GitHub: unsupported GraphQL query" }] });
  }
  const repo = s.world.repos.get(`${v.owner}/${v.name}`);
  if (!repo) {
    return json(200, {
      data: { repository: null },
      errors: [{
        type: "NOT_FOUND",
        message: `Could not resolve to a Repository with the name '${v.owner}/${v.name}'.`,
      }],
    });
  }
  const it = repo.items.get(Number(v.number));
  if (!it?.pull) {
    return json(200, {
      data: { repository: { pullRequest: null } },
      errors: [{
        type: "NOT_FOUND",
        message: `Could not resolve to a PullRequest with the number of ${v.number}.`,
      }],
    });
  }
  const nodes = it.pull.closingIssues.map((c) => ({
    number: c.number,
    repository: { nameWithOwner: c.repo },
  }));
  return json(200, {
    data: { repository: { pullRequest: { closingIssuesReferences: { nodes } } } },
  });
}

/** Answers one request. */
export async function handle(s: ServerState, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const method = req.method.toUpperCase();
  const headers: Record<string, string> = {};
  req.headers.forEach((v, k) => {
    if (k !== "authorization") headers[k] = v;
  });
  const rec: RecordedRequest = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    status: 0,
  };
  s.requests.push(rec);
  if (s.git && GIT_PATH.test(url.pathname)) {
    const tokens = s.token === undefined ? [] : [s.token, ...(s.users?.keys() ?? [])];
    return done(rec, await serveGit({ ...s.git, tokens }, req));
  }
  const text = method === "GET" || method === "HEAD" ? "" : await req.text();
  let body: Json;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      return done(rec, json(400, { message: "Problems parsing JSON" }));
    }
    rec.body = body;
  }
  let actor = s.actor();
  if (s.token !== undefined) {
    const auth = req.headers.get("authorization") ?? "";
    const given = /^(?:Bearer|token) (.+)$/.exec(auth)?.[1];
    const user = given === undefined ? undefined : s.users?.get(given);
    if (user !== undefined) actor = user;
    else if (given !== s.token) {
      return done(rec, json(401, { message: "Bad credentials", status: "401" }));
    }
  }
  const fault = takeFault(s, method, url.pathname);
  if (fault) {
    const res = await applyFault(fault, req, s);
    if (res) return done(rec, res);
  }
  for (const [m, pattern, handler] of routes(s, actor)) {
    if (m !== method) continue;
    const match = url.pathname.match(pattern);
    if (!match) continue;
    const out = handler(match, url, body);
    if (out instanceof Response) {
      if ((out.status < 300 || out.status >= 400) && url.pathname !== "/rate_limit") {
        s.rate.remaining = Math.max(0, s.rate.remaining - 1);
      }
      for (const [k, v] of Object.entries(rateHeaders(s))) out.headers.set(k, v);
      return done(rec, out);
    }
    return done(rec, await conditional(s, req, out));
  }
  return done(rec, notFound());
}

async function conditional(s: ServerState, req: Request, out: Json): Promise<Response> {
  const link: string | undefined = out?.__link;
  const text = JSON.stringify(publicView(out));
  const etag = await etagOf(`${text}\n${link ?? ""}`);
  const inm = req.headers.get("if-none-match");
  const headers: Record<string, string> = { etag, ...(link ? { link } : {}) };
  if (inm && inm.split(",").map((x) => x.trim()).includes(etag)) {
    return new Response(null, { status: 304, headers: { ...headers, ...rateHeaders(s) } });
  }
  s.rate.remaining = Math.max(0, s.rate.remaining - 1);
  return new Response(text, {
    status: 200,
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...headers,
      ...rateHeaders(s),
    },
  });
}

function done(rec: RecordedRequest, res: Response): Response {
  rec.status = res.status;
  return res;
}
