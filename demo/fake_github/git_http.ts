/**
 * Real git repositories over HTTP, as GitHub serves them at `https://github.com/OWNER/REPO.git`:
 * git's smart HTTP protocol, answered by `git http-backend` run as a CGI program for each request
 * (`GIT_PROJECT_ROOT` the folder of bare repositories, `<root>/<owner>/<repo>.git`). Clone and
 * fetch work; pushes are refused (`http.receivepack` is off, as for an anonymous client).
 *
 * When a token is set, a request must carry it as git sends an `extraHeader`
 * (`Authorization: Basic base64(x-access-token:<token>)`, any user name) or as a bearer token;
 * others get 401 (with `GIT_TERMINAL_PROMPT=0`, git fails at once instead of asking).
 *
 * ```ts
 * const res = await serveGit({ root: "/tmp/repos", tokens: ["t0k"] }, request);
 * ```
 *
 * @module
 */

/** The request paths {@linkcode serveGit} answers: `/<owner>/<repo>.git/...`. */
export const GIT_PATH = /^\/([^/]+)\/([^/]+\.git)(\/.*)$/;

/** Options of {@linkcode serveGit}. */
export interface GitHttpOptions {
  /** The folder holding `<owner>/<repo>.git` bare repositories. */
  root: string;
  /** The tokens that may read (none: anyone may). */
  tokens?: readonly string[];
}

/** Whether the request carries one of `tokens` (always, when there are none). */
function authorized(req: Request, tokens: readonly string[] | undefined): boolean {
  if (!tokens?.length) return true;
  const auth = req.headers.get("authorization") ?? "";
  const bearer = /^(?:Bearer|token) (.+)$/i.exec(auth)?.[1];
  if (bearer !== undefined) return tokens.includes(bearer);
  const basic = /^Basic (.+)$/i.exec(auth)?.[1];
  if (basic === undefined) return false;
  try {
    const pair = atob(basic);
    return tokens.includes(pair.slice(pair.indexOf(":") + 1));
  } catch {
    return false;
  }
}

/** Splits a CGI answer into its status, headers and body. */
export function parseCgi(
  out: Uint8Array,
): { status: number; headers: Headers; body: Uint8Array<ArrayBuffer> } {
  // the header block ends at the first empty line (CRLF CRLF or LF LF)
  let end = -1;
  let skip = 0;
  for (let i = 0; i < out.length - 1; i++) {
    if (out[i] === 10 && out[i + 1] === 10) {
      end = i, skip = 2;
      break;
    }
    if (out[i] === 13 && out[i + 1] === 10 && out[i + 2] === 13 && out[i + 3] === 10) {
      end = i, skip = 4;
      break;
    }
  }
  if (end < 0) return { status: 502, headers: new Headers(), body: out.slice() };
  const head = new TextDecoder().decode(out.subarray(0, end));
  const headers = new Headers();
  let status = 200;
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]) || 502;
    else headers.append(name, value);
  }
  return { status, headers, body: out.slice(end + skip) };
}

/**
 * Answers a git request (`/<owner>/<repo>.git/info/refs?service=git-upload-pack`,
 * `…/git-upload-pack`) with `git http-backend`; 404 for a repository that is not there.
 */
export async function serveGit(o: GitHttpOptions, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const m = GIT_PATH.exec(url.pathname);
  if (!m) return new Response("not a git path\n", { status: 404 });
  if (!authorized(req, o.tokens)) {
    return new Response("Authentication failed\n", {
      status: 401,
      headers: { "www-authenticate": 'Basic realm="GitHub"' },
    });
  }
  if (m[1].startsWith(".") || m[2].startsWith(".")) return new Response(null, { status: 404 });
  try {
    await Deno.stat(`${o.root}/${m[1]}/${m[2]}`);
  } catch {
    return new Response("Repository not found.\n", { status: 404 });
  }
  const body = req.body ? new Uint8Array(await req.arrayBuffer()) : new Uint8Array();
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    GIT_PROJECT_ROOT: o.root,
    GIT_HTTP_EXPORT_ALL: "1",
    GATEWAY_INTERFACE: "CGI/1.1",
    REQUEST_METHOD: req.method,
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    CONTENT_TYPE: req.headers.get("content-type") ?? "",
    CONTENT_LENGTH: String(body.length),
    REMOTE_ADDR: "127.0.0.1",
    REMOTE_USER: "x-access-token",
    // a client asking for protocol v2 gets it, as from GitHub
    GIT_PROTOCOL: req.headers.get("git-protocol") ?? "",
    // the repositories are the demo's own: no safe.directory refusal, whoever owns them
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "safe.directory",
    GIT_CONFIG_VALUE_0: "*",
    GIT_CONFIG_KEY_1: "http.receivepack",
    GIT_CONFIG_VALUE_1: "false",
  };
  if (req.headers.get("content-encoding")) {
    env.HTTP_CONTENT_ENCODING = req.headers.get("content-encoding")!;
  }
  const child = new Deno.Command("git", {
    args: ["http-backend"],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(body).catch(() => {});
  await writer.close().catch(() => {});
  const out = await child.output();
  if (!out.success && out.stdout.length === 0) {
    const why = new TextDecoder().decode(out.stderr).trim();
    return new Response(`git http-backend failed: ${why}\n`, { status: 500 });
  }
  const cgi = parseCgi(out.stdout);
  return new Response(cgi.body, { status: cgi.status, headers: cgi.headers });
}
