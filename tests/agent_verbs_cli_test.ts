/**
 * The verbs `advance`, `ask` and `reply` through the real CLI and a real daemon's control
 * endpoint (`poll start` against the fake GitHub): with no daemon they exit 1 saying which to
 * start; the socket is mode 0600; `reply` to an item with no session spawns nothing; `advance`
 * with another item's capability (or none) is refused before the dispatcher, and the capability
 * is never logged; a stopped daemon leaves no socket behind.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { FakeGitHub } from "./fake_github/mod.ts";
import { pathWithFakes, readHarnessLog } from "./fake_harness/mod.ts";
import { cli, cliSchema, readOutput, spawnCli, stopChild, tree, until } from "./_test_utils.ts";

const TOKEN = "t0k-agent-verbs";
const REF = "github:octo/repo#1";

function config(apiUrl: string): string {
  return [
    `github: { apiUrl: "${apiUrl}", tokenEnv: VERBS_TOKEN }`,
    "webhooks:",
    "  ghWebhook:",
    "    routing:",
    "      enabled: true",
    "      authorizedUsers: [alice]",
    "      spawnOnUnmatched: labeled",
    "      runner: process",
    "      harnessEnv: { pass: [FAKE_HARNESS_LOG] }",
    "      workspace: { enabled: false }",
    "polling:",
    "  intervalSeconds: 3600",
    "  sources: [{ provider: github, repos: [octo/repo] }]",
    "",
  ].join("\n");
}

Deno.test("the verbs with no daemon running: exit 1 naming the state root and what to start", async () => {
  const dir = tree({ ".the-loop/cli-config.yaml": "eventLog: { enabled: false }\n" });
  const root = join(dir, ".the-loop");
  const said = new RegExp(
    `no the-loop daemon is running for ${root.replaceAll(".", "\\.")}; start ` +
      "`the-loop poll start` or `the-loop gh-webhook start`",
  );
  for (
    const [args, env] of [
      [["reply", REF, "--text", "yes", "--actor", "alice"], {}],
      [["advance", "--outcome", "done"], { THE_LOOP_SESSION: "c", THE_LOOP_WORK_ITEM: REF }],
      [["ask", REF, "--question", "which?"], { THE_LOOP_SESSION: "c" }],
    ] as const
  ) {
    const r = await cli([...args], { cwd: dir, env });
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, said, args[0]);
  }
  const check = await cliSchema("verb");
  const j = await cli(["reply", REF, "--text", "yes", "--actor", "alice", "--format", "json"], {
    cwd: dir,
  });
  assert.equal(j.code, 1);
  const doc = JSON.parse(j.stdout);
  check(doc);
  assert.equal(doc.ok, false);
  assert.equal(doc.workItem, REF);
  assert.match(doc.problems[0].message, said);
});

Deno.test("the verbs refuse what they cannot send: no REF, no capability, empty text", async () => {
  const dir = tree({ ".the-loop/cli-config.yaml": "eventLog: { enabled: false }\n" });
  const noRef = await cli(["advance", "--outcome", "done"], { cwd: dir });
  assert.equal(noRef.code, 2);
  assert.match(noRef.stderr, /which work item\? give REF .*\$THE_LOOP_WORK_ITEM/);
  const noCap = await cli(["advance", REF, "--outcome", "done"], { cwd: dir });
  assert.equal(noCap.code, 1);
  assert.match(noCap.stderr, /run this from inside a the-loop session/);
  const empty = await cli(["reply", REF, "--text", "  ", "--actor", "alice"], { cwd: dir });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--text is empty: nothing was sent/);
  const noQuestion = await cli(["ask", REF, "--question", ""], {
    cwd: dir,
    env: { THE_LOOP_SESSION: "c" },
  });
  assert.equal(noQuestion.code, 2);
  assert.match(noQuestion.stderr, /--question is empty/);
  const badRef = await cli(["reply", "octo/repo#1", "--text", "x", "--actor", "a"], { cwd: dir });
  assert.equal(badRef.code, 2);
  assert.match(badRef.stderr, /not a work item ref/);
});

Deno.test("a running poller's control endpoint: mode 0600, reply spawns nothing, a wrong capability is refused", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addRepo("octo/repo");
  gh.world.addIssue("octo/repo", { user: "alice" });
  const dir = tree({ ".the-loop/cli-config.yaml": config(gh.url) });
  const root = join(dir, ".the-loop");
  const harnessLog = join(dir, "harness.jsonl");
  const env = { VERBS_TOKEN: TOKEN, PATH: pathWithFakes(), FAKE_HARNESS_LOG: harnessLog };
  const daemon = spawnCli(["poll", "start"], { cwd: dir, env });
  const output = readOutput(daemon);
  const socket = join(root, "poll.sock");
  try {
    await until("poll: started", () => output.out.stdout.includes("poll: started"));
    const info = await Deno.lstat(socket);
    assert.ok(info.isSocket, "poll.sock is a socket");
    assert.equal(info.mode! & 0o777, 0o600, "the socket is the daemon's user's alone");
    assert.equal((await Deno.stat(join(root, "session.key"))).mode! & 0o777, 0o600);

    // an operator's reply to an item with no session: exit 1, nothing spawned
    const reply = await cli(["reply", REF, "--text", "go ahead", "--actor", "alice"], {
      cwd: dir,
      env,
    });
    assert.equal(reply.code, 1, reply.stdout + reply.stderr);
    assert.notEqual(reply.stderr, "");
    assert.deepEqual(await readHarnessLog(harnessLog), [], "no harness was started");
    const sessions = await Array.fromAsync(Deno.readDir(join(root, "sessions"))).catch(() => []);
    assert.deepEqual(sessions.filter((f) => f.name.endsWith(".json")), [], "no session");

    // another item's capability (the key is the daemon's, the ref another's): refused
    const key = await Deno.readFile(join(root, "session.key"));
    const other = createHmac("sha256", key).update("github:octo/repo#2").digest("base64url");
    for (const capability of [other, "forged"]) {
      const r = await cli(["advance", REF, "--outcome", "done", "--format", "json"], {
        cwd: dir,
        env: { ...env, THE_LOOP_SESSION: capability, THE_LOOP_CONTROL: socket },
      });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /this session may act only on its own work item/);
      const doc = JSON.parse(r.stdout);
      (await cliSchema("verb"))(doc);
      assert.equal(doc.socket, socket);
    }
    const events = await Deno.readTextFile(join(root, "logs", "events.jsonl"));
    const refused = events.split("\n").filter((l) => l.includes('"control.verb_refused"'));
    assert.equal(refused.length, 2, "each refusal is an event");
    assert.ok(!events.includes(other), "a capability is never logged");
    assert.match(events, /"control\.listening"/);
  } finally {
    await stopChild(daemon, "SIGTERM");
    await output.done;
  }
  await assert.rejects(Deno.lstat(socket), Deno.errors.NotFound, "a stopped daemon's socket goes");
});

Deno.test("a running gh-webhook's control endpoint: the verbs find gh-webhook.sock from the config", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addRepo("octo/repo");
  const dir = tree({ ".the-loop/cli-config.yaml": config(gh.url) });
  const root = join(dir, ".the-loop");
  const env = { VERBS_TOKEN: TOKEN, THE_LOOP_GH_WEBHOOK_SECRET: "s3cret" };
  const daemon = spawnCli(["gh-webhook", "start", "--port", "0"], { cwd: dir, env });
  const output = readOutput(daemon);
  const socket = join(root, "gh-webhook.sock");
  try {
    await until("gh-webhook: listening", () => output.out.stdout.includes("gh-webhook: listening"));
    assert.equal((await Deno.lstat(socket)).mode! & 0o777, 0o600);
    const r = await cli(["advance", REF, "--outcome", "done"], {
      cwd: dir,
      env: { ...env, THE_LOOP_SESSION: "forged" },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /this session may act only on its own work item/, "it was answered");
  } finally {
    await stopChild(daemon, "SIGTERM");
    await output.done;
  }
  await assert.rejects(Deno.lstat(socket), Deno.errors.NotFound);
});

Deno.test("a spawned session holds its capability, its item, the socket and the launcher; `the-loop advance` from it reaches the daemon", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  gh.world.addRepo("octo/repo");
  const issue = gh.world.addIssue("octo/repo", {
    labels: ["the-loop: auto-execute"],
    user: "alice",
  });
  gh.world.addComment("octo/repo", issue.number, "the-loop:start-execution", "alice");
  const ref = `github:octo/repo#${issue.number}`;
  const dir = tree({ ".the-loop/cli-config.yaml": config(gh.url) });
  const root = join(dir, ".the-loop");
  const harnessLog = join(dir, "harness.jsonl");
  const env = {
    VERBS_TOKEN: TOKEN,
    PATH: pathWithFakes(),
    FAKE_HARNESS_LOG: harnessLog,
    GH_TOKEN: "daemon-only-token-81f3",
  };
  const daemon = spawnCli(["poll", "start"], { cwd: dir, env });
  const output = readOutput(daemon);
  try {
    await until(
      "the harness booted",
      async () => (await readHarnessLog(harnessLog)).some((e) => e.event === "boot"),
    );
    const boot = (await readHarnessLog(harnessLog)).find((e) => e.event === "boot")!;
    const environ = boot.environ!;
    assert.ok(environ, "the fake harness logged its environ");
    const key = await Deno.readFile(join(root, "session.key"));
    assert.equal(
      environ.THE_LOOP_SESSION,
      createHmac("sha256", key).update(ref).digest("base64url"),
    );
    assert.equal(environ.THE_LOOP_WORK_ITEM, ref);
    assert.equal(environ.THE_LOOP_CONTROL, join(root, "poll.sock"));
    assert.ok(environ.PATH.includes(`${join(root, "bin")}:`), environ.PATH);
    assert.ok(!Object.values(environ).includes(TOKEN), "no daemon token in the session");
    assert.ok(!Object.values(environ).includes(env.GH_TOKEN), "no daemon GH_TOKEN in the session");
    // the agent's own command line: `the-loop` found on the session's PATH, no REF, no socket
    const session = ["THE_LOOP_SESSION", "THE_LOOP_WORK_ITEM", "THE_LOOP_CONTROL", "PATH", "HOME"];
    const r = await new Deno.Command("sh", {
      args: ["-c", "the-loop advance --outcome done"],
      cwd: dir,
      env: {
        ...Object.fromEntries(session.map((n) => [n, environ[n] ?? ""])),
        DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(r.stderr) + new TextDecoder().decode(r.stdout);
    assert.doesNotMatch(
      said,
      /may act only on its own work item|no the-loop daemon|not found/,
      said,
    );
    const events = await Deno.readTextFile(join(root, "logs", "events.jsonl"));
    const verbs = events.split("\n").filter((l) => l.includes('"control.verb"'));
    assert.equal(verbs.length, 1, "the daemon answered the verb");
    assert.equal(JSON.parse(verbs[0]).work_item, ref);
    assert.ok(!events.includes(environ.THE_LOOP_SESSION), "the capability is never logged");
  } finally {
    await stopChild(daemon, "SIGTERM");
    await output.done;
  }
});
