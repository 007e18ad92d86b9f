/**
 * Test helpers for the workspaces: a hermetic git environment (no global or system config), a
 * local bare repository as the remote, a recording {@linkcode GitRun} that still runs real git,
 * and a loopback smart-HTTP server (`git http-backend` as CGI) that demands the token, so the
 * token's path can be checked end to end.
 *
 * @module
 */
import { join } from "node:path";
import { denoGit, type GitCall, type GitRun } from "./git.ts";

/** A hermetic git environment under `home`: fixed identities, no user or system config. */
export async function gitEnv(home: string): Promise<Record<string, string>> {
  const global = join(home, "gitconfig");
  await Deno.writeTextFile(global, "");
  return {
    HOME: home,
    GIT_CONFIG_GLOBAL: global,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.invalid",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.invalid",
  };
}

/** Runs git for a test, throwing on failure; resolves with stdout. */
export async function git(env: Record<string, string>, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, env, stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** A bare repository standing in for GitHub, and a clone of it to push commits from. */
export interface Remote {
  /** The bare repository's path (usable as a remote URL). */
  bare: string;
  /** Commits `files` on `main` and pushes; resolves with the new commit's id. */
  push(files: Record<string, string>, message?: string): Promise<string>;
  /** Pushes `main`'s current commit plus `files` as `refs/pull/<n>/head`; resolves with its id. */
  pushPull(number: number, files: Record<string, string>): Promise<string>;
}

/** Makes `<dir>/<name>.git` with a first commit on `main` holding `files`. */
export async function makeRemote(
  dir: string,
  env: Record<string, string>,
  files: Record<string, string> = { "README.md": "hello\n" },
  name = "remote",
): Promise<Remote> {
  const bare = join(dir, `${name}.git`);
  const work = join(dir, `${name}-work`);
  await git(env, "init", "--quiet", "--bare", "--initial-branch=main", bare);
  await git(env, "init", "--quiet", "--initial-branch=main", work);
  await git(env, "-C", work, "remote", "add", "origin", bare);
  const commit = async (fs: Record<string, string>, message: string) => {
    for (const [path, text] of Object.entries(fs)) {
      await Deno.mkdir(join(work, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(work, path), text);
    }
    await git(env, "-C", work, "add", "--all");
    await git(env, "-C", work, "commit", "--quiet", "--allow-empty", "-m", message);
    return (await git(env, "-C", work, "rev-parse", "HEAD")).trim();
  };
  const remote: Remote = {
    bare,
    async push(fs, message = "change") {
      const id = await commit(fs, message);
      await git(env, "-C", work, "push", "--quiet", "origin", "HEAD:refs/heads/main");
      return id;
    },
    async pushPull(number, fs) {
      const id = await commit(fs, `pull ${number}`);
      await git(env, "-C", work, "push", "--quiet", "origin", `HEAD:refs/pull/${number}/head`);
      await git(env, "-C", work, "reset", "--quiet", "--hard", "HEAD~1");
      return id;
    },
  };
  await remote.push(files, "first");
  return remote;
}

/** A {@linkcode GitRun} that records every call (argv, env) and runs real git. */
export function recordingGit(env: Record<string, string>): { run: GitRun; calls: GitCall[] } {
  const real = denoGit({ env });
  const calls: GitCall[] = [];
  return {
    calls,
    run: (call) => {
      calls.push(call);
      return real(call);
    },
  };
}

/** The subcommands of recorded calls (`-C <dir>` skipped): `["clone", "fetch", …]`. */
export function subcommands(calls: GitCall[]): string[] {
  return calls.map((c) => c.args[0] === "-C" ? c.args[2] : c.args[0]);
}

/** A loopback git smart-HTTP server over `projectRoot` that answers 401 without `authorization`. */
export interface GitHttpServer extends AsyncDisposable {
  url: string;
  /** The Authorization header of every request. */
  authorizations: (string | null)[];
}

/** Serves `projectRoot` with `git http-backend`, requiring exactly `authorization`. */
export function gitHttpServer(
  projectRoot: string,
  env: Record<string, string>,
  authorization: string,
): GitHttpServer {
  const authorizations: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const got = req.headers.get("authorization");
    authorizations.push(got);
    if (got !== authorization) {
      return new Response("no", {
        status: 401,
        headers: { "www-authenticate": 'Basic realm="t"' },
      });
    }
    const url = new URL(req.url);
    const cgi = new Deno.Command("git", {
      args: ["http-backend"],
      env: {
        ...env,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: req.method,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers.get("content-type") ?? "",
        HTTP_CONTENT_ENCODING: req.headers.get("content-encoding") ?? "",
        HTTP_GIT_PROTOCOL: req.headers.get("git-protocol") ?? "",
        REMOTE_ADDR: "127.0.0.1",
      },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const body = new Uint8Array(await req.arrayBuffer());
    const writer = cgi.stdin.getWriter();
    await writer.write(body);
    await writer.close();
    const out = (await cgi.output()).stdout;
    const text = new TextDecoder("latin1").decode(out);
    const split = text.indexOf("\r\n\r\n");
    const head = text.slice(0, split).split("\r\n");
    const headers = new Headers();
    let status = 200;
    for (const line of head) {
      const [k, ...v] = line.split(":");
      if (k.toLowerCase() === "status") status = Number(v.join(":").trim().split(" ")[0]);
      else headers.append(k, v.join(":").trim());
    }
    return new Response(out.slice(split + 4), { status, headers });
  });
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
