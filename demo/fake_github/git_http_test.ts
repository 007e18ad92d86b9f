/** The fake GitHub's git server (a real clone and fetch over smart HTTP, the token's path), a person's token, close by PATCH, forwarding. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DEMO_FILES, FakeGitHub, makeDemoRepository, parseCgi } from "./mod.ts";

async function git(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command("git", {
    args,
    env: { GIT_TERMINAL_PROMPT: "0", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** git's configuration-by-environment, as the workspaces send the token. */
const header = (origin: string, token: string) => ({
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: `http.${origin}/.extraHeader`,
  GIT_CONFIG_VALUE_0: `Authorization: Basic ${btoa(`x-access-token:${token}`)}`,
});

Deno.test("the fake serves a real repository over smart HTTP, to the token only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await makeDemoRepository(join(dir, "git"));
    await using gh = await FakeGitHub.start({
      token: "t0k",
      users: { "you-t0k": "you" },
      git: { root: join(dir, "git") },
    });
    const url = `${gh.url}/octo/demo.git`;
    // the daemon's token, as an extraHeader: a clone, with the first commit's files
    const clone = await git(["clone", "-q", url, join(dir, "a")], header(gh.url, "t0k"));
    assert.equal(clone.code, 0, clone.stderr);
    for (const [path, text] of Object.entries(DEMO_FILES)) {
      assert.equal(await Deno.readTextFile(join(dir, "a", path)), text);
    }
    // and a fetch with a glob refspec that matches nothing is no error
    const fetch = await git(
      ["-C", join(dir, "a"), "fetch", "-q", "origin", "+refs/pull/1/*:refs/remotes/pull/1/*"],
      header(gh.url, "t0k"),
    );
    assert.equal(fetch.code, 0, fetch.stderr);
    // no token, or a wrong one: 401, at once
    const none = await git(["clone", "-q", url, join(dir, "b")]);
    assert.notEqual(none.code, 0);
    const wrong = await git(["clone", "-q", url, join(dir, "c")], header(gh.url, "nope"));
    assert.notEqual(wrong.code, 0);
    assert.ok(gh.requests.some((r) => r.path === "/octo/demo.git/info/refs" && r.status === 401));
    // a repository that is not there
    const missing = await git(
      ["clone", "-q", `${gh.url}/octo/nope.git`, join(dir, "d")],
      header(gh.url, "t0k"),
    );
    assert.notEqual(missing.code, 0);
    // pushes are refused
    const push = await git(
      ["-C", join(dir, "a"), "push", "-q", "origin", "HEAD:x"],
      header(gh.url, "t0k"),
    );
    assert.notEqual(push.code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseCgi splits status, headers and body", () => {
  const enc = new TextEncoder();
  const r = parseCgi(enc.encode("Status: 404 Not Found\r\nContent-Type: text/plain\r\n\r\nnope"));
  assert.equal(r.status, 404);
  assert.equal(r.headers.get("content-type"), "text/plain");
  assert.equal(new TextDecoder().decode(r.body), "nope");
  assert.equal(parseCgi(enc.encode("Content-Type: x\n\nok")).status, 200);
  assert.equal(parseCgi(enc.encode("no header end")).status, 502);
});

Deno.test("a person's token writes as them; PATCH closes and reopens; forward delivers", async () => {
  await using gh = await FakeGitHub.start({ token: "t0k", users: { "you-t0k": "you" } });
  const issue = gh.world.addIssue("octo/demo", { title: "x" });
  const as = (token: string, method: string, path: string, body: unknown) =>
    fetch(`${gh.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const c = await as("you-t0k", "POST", `/repos/octo/demo/issues/${issue.number}/comments`, {
    body: "hello",
  });
  assert.equal(c.status, 201);
  assert.equal(c.body.user.login, "you");
  const bot = await as("t0k", "POST", `/repos/octo/demo/issues/${issue.number}/comments`, {
    body: "hi",
  });
  assert.equal(bot.body.user.login, "the-loop-bot");
  // forwarding: what is pending now, then each change as it is made, signed
  const got: { event: string; sig: string | null; body: string }[] = [];
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    got.push({
      event: req.headers.get("x-github-event") ?? "",
      sig: req.headers.get("x-hub-signature-256"),
      body: await req.text(),
    });
    return new Response(null, { status: 202 });
  });
  const fwd = gh.forward(`http://127.0.0.1:${receiver.addr.port}/`, { secret: "s3" });
  const closed = await as("you-t0k", "PATCH", `/repos/octo/demo/issues/${issue.number}`, {
    state: "closed",
  });
  assert.equal(closed.status, 200);
  assert.equal(closed.body.state, "closed");
  assert.equal(closed.body.closed_by.login, "you");
  const bad = await as("you-t0k", "PATCH", `/repos/octo/demo/issues/${issue.number}`, {
    state: "gone",
  });
  assert.equal(bad.status, 422);
  const deadline = Date.now() + 10_000;
  while (got.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await fwd.stop();
  await receiver.shutdown();
  assert.deepEqual(got.map((g) => g.event), ["issues", "issue_comment", "issue_comment", "issues"]);
  assert.ok(got.every((g) => g.sig?.startsWith("sha256=")));
  assert.equal(JSON.parse(got[3].body).action, "closed");
  assert.equal(JSON.parse(got[3].body).sender.login, "you");
});
