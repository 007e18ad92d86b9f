import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../../events/mod.ts";
import { workItem } from "../../state/work_item.ts";
import { GitWorkspaces, WorkspaceError } from "./mod.ts";
import { authEnv, redact } from "./_auth.ts";
import { gitEnv, gitHttpServer, makeRemote, recordingGit, subcommands } from "./_test_utils.ts";

const TOKEN = "ghs_fakeTokenForTheWorkspaceTest0123456789";
const BASIC = btoa(`x-access-token:${TOKEN}`);
const item = (number: number) => workItem({ owner: "octo", repo: "remote", number });

async function* filesUnder(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory && e.name !== "objects") yield* filesUnder(p);
    else if (e.isFile) yield p;
  }
}

Deno.test("over HTTPS-style remotes the token reaches git by environment only", async () => {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-ws-token-" });
  try {
    const env = await gitEnv(dir);
    const remotes = join(dir, "remotes");
    await Deno.mkdir(remotes);
    const remote = await makeRemote(remotes, env);
    await using server = gitHttpServer(remotes, env, `Basic ${BASIC}`);
    const rec = recordingGit(env);
    const events = new MemorySink();
    const root = join(dir, "workspaces");
    const ws = new GitWorkspaces({
      root,
      remoteUrl: () => `${server.url}/remote.git`,
      token: () => TOKEN,
      events,
      run: rec.run,
      env: () => undefined,
    });
    await ws.prepare(item(1), {});
    await remote.push({ "b.txt": "b\n" });
    const second = await ws.prepare(item(2), {});
    assert.equal(await Deno.readTextFile(join(second.cwd, "b.txt")), "b\n");

    // the server got the header (the token works) …
    assert.ok(server.authorizations.includes(`Basic ${BASIC}`));
    // … yet no argv held it, and only the calls that talk to the remote got it by environment
    for (const call of rec.calls) {
      const argv = call.args.join(" ");
      assert.ok(!argv.includes(TOKEN) && !argv.includes(BASIC), argv);
    }
    const withAuth = rec.calls.filter((c) => c.env?.GIT_CONFIG_COUNT);
    assert.ok(withAuth.length >= 2);
    assert.deepEqual(new Set(subcommands(withAuth)), new Set(["clone", "fetch"]));
    assert.equal(withAuth[0].env?.GIT_CONFIG_KEY_0, `http.${server.url}/.extraHeader`);
    // … and no file of the cache or the worktrees, nor any event, holds it
    for await (const file of filesUnder(root)) {
      const text = await Deno.readTextFile(file).catch(() => "");
      assert.ok(!text.includes(TOKEN) && !text.includes(BASIC), `${file} holds the token`);
    }
    assert.ok(!JSON.stringify(events.records).includes(TOKEN));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a refused token fails the clone with git's words, the token redacted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-ws-token-" });
  try {
    const env = await gitEnv(dir);
    const remotes = join(dir, "remotes");
    await Deno.mkdir(remotes);
    await makeRemote(remotes, env);
    await using server = gitHttpServer(remotes, env, "Basic something-else");
    const events = new MemorySink();
    const ws = new GitWorkspaces({
      root: join(dir, "workspaces"),
      remoteUrl: () => `${server.url}/remote.git`,
      token: () => TOKEN,
      events,
      run: recordingGit(env).run,
    });
    const err = await ws.prepare(item(1), {}).then(() => undefined, (e) => e);
    assert.ok(err instanceof WorkspaceError);
    assert.equal(err.step, "clone");
    assert.match(err.message, /failed \(exit 128\)/);
    assert.ok(!err.message.includes(TOKEN) && !err.message.includes(BASIC));
    assert.equal(events.ofType("workspace.failed").length, 1);
    assert.ok(!JSON.stringify(events.records).includes(TOKEN));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("authEnv scopes the header to the remote's origin and appends to the user's own", () => {
  assert.deepEqual(authEnv("/srv/repo.git", TOKEN, () => undefined), {});
  assert.deepEqual(authEnv("https://github.com/o/r.git", undefined, () => undefined), {});
  assert.deepEqual(
    authEnv(
      "https://ghe.example:8443/o/r.git",
      TOKEN,
      (n) => n === "GIT_CONFIG_COUNT" ? "2" : undefined,
    ),
    {
      GIT_CONFIG_COUNT: "3",
      GIT_CONFIG_KEY_2: "http.https://ghe.example:8443/.extraHeader",
      GIT_CONFIG_VALUE_2: `Authorization: Basic ${BASIC}`,
    },
  );
});

Deno.test("redact removes the token, its Basic form and URL credentials", () => {
  const text = `fatal: https://x:${TOKEN}@github.com/o/r.git: Basic ${BASIC} and ${TOKEN}`;
  const out = redact(text, TOKEN);
  assert.ok(!out.includes(TOKEN) && !out.includes(BASIC), out);
  assert.match(out, /https:\/\/\[redacted\]@github\.com/);
});
