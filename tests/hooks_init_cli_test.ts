/**
 * `the-loop hooks init`: for each kind, the printed snippet pasted into the config as it is,
 * then `hooks test` (with the printed command) and `hooks validate` pass — the starters work
 * out of the box.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { cli } from "./_test_utils.ts";
import { freePort, snippetOf, tree } from "./_test_utils.ts";

/** Runs init, pastes its snippet into `config`, returns the printed `hooks test` argv. */
async function initAndPaste(cwd: string, args: string[], config: string): Promise<string[]> {
  const r = await cli(["hooks", "init", ...args], { cwd });
  assert.equal(r.code, 0, r.stderr);
  const before = await Deno.readTextFile(config).catch(() => "");
  await Deno.writeTextFile(config, before + snippetOf(r.stdout));
  const testLine = r.stdout.split("\n").find((l) => l.startsWith("  the-loop hooks test "));
  assert.ok(testLine, r.stdout);
  return testLine.trim().split(/\s+/).slice(1);
}

/** The first line a stream prints (the server's ready line); rejects after 20 s. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const bound = setTimeout(() => reader.cancel(), 20_000);
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the server printed no line (got ${JSON.stringify(text)})`);
      text += value;
    }
    return text.slice(0, text.indexOf("\n"));
  } finally {
    clearTimeout(bound);
    reader.releaseLock();
  }
}

/** `deno check` a generated TypeScript file against the SDK `hooks init` wrote beside it. */
async function typeChecks(file: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--cached-only", "--config", join(dirname(file), "deno.json"), file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

Deno.test("hooks init module: written beside the config, pasted, tested and validated", async () => {
  const cwd = tree({ ".the-loop/cli-config.yaml": "polling: { intervalSeconds: 30 }\n" });
  const config = join(cwd, ".the-loop/cli-config.yaml");
  const testArgs = await initAndPaste(cwd, ["house-policy"], config);
  assert.deepEqual(testArgs, [
    "hooks",
    "test",
    "house-policy",
    "--point",
    "session_spawn",
    "--context",
    ".the-loop/hooks/house-policy.context.json",
  ]);
  const file = join(cwd, ".the-loop/hooks/house-policy.ts");
  const text = await Deno.readTextFile(file);
  assert.match(text, /^import \{ LifecycleHooks, .*\} from "@the-loop\/hooks";$/m);
  assert.match(text, /export default class HousePolicy extends LifecycleHooks/);
  assert.match(
    await Deno.readTextFile(config),
    /\nhooks:\n {2}- name: house-policy\n {4}path: "hooks\/house-policy\.ts"\n$/,
  );

  Deno.writeTextFileSync(
    join(cwd, "expect.json"),
    JSON.stringify({
      prompt: "Follow the team's conventions.\n\nImplement issue #42.",
      proceed: true,
    }),
  );
  const t = await cli([...testArgs, "--expect", "expect.json"], { cwd });
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /^hook house-policy \(module\) at session_spawn: decided/);
  assert.match(t.stdout, /\nexpect: ok/);
  const v = await cli(["hooks", "validate"], { cwd });
  assert.equal(v.code, 0, v.stderr);
  assert.match(
    v.stdout,
    /called at work_item_start, session_spawn \[\d+ ms\]\nok {4}type check: 1 module hook file against @the-loop\/hooks \(deno check, \d+ ms\)\nok: 1 hook\n$/,
  );
  await typeChecks(file);
});

Deno.test("hooks init command: an executable sh script that passes and decides", async () => {
  const cwd = tree({ "conf/cli-config.yaml": "" });
  const config = join(cwd, "conf/cli-config.yaml");
  const env = { THE_LOOP_CLI_CONFIG: "conf/cli-config.yaml" };
  const r = await cli(["hooks", "init", "audit", "--kind", "command"], { cwd, env });
  assert.equal(r.code, 0, r.stderr);
  Deno.writeTextFileSync(config, snippetOf(r.stdout));
  const script = join(cwd, "conf/hooks/audit.sh");
  const info = Deno.statSync(script);
  assert.equal(info.mode! & 0o111, 0o111, "the script is executable");
  const text = Deno.readTextFileSync(script);
  assert.ok(text.startsWith("#!/bin/sh\n"));
  assert.ok(!/\b(jq|python)\b\s/.test(text.replace(/^#.*$/gm, "")), "no jq or python");

  const t = await cli([
    "hooks",
    "test",
    "audit",
    "--point",
    "work_item_start",
    "--context",
    "conf/hooks/audit.context.json",
  ], { cwd, env });
  assert.equal(t.code, 0, t.stderr);
  assert.match(
    t.stdout,
    /^hook audit \(command\) at work_item_start: passed in \d+(?:\.\d+)? ms\nchanged: nothing\n/,
  );

  // its decision at phase_changed, and its refusal once an actor is blocked
  Deno.writeTextFileSync(
    join(cwd, "entered.json"),
    JSON.stringify({
      work_item: "github:acme/app#42",
      loop: "l",
      from_node: "",
      to_node: "start",
      from_phase: "",
      to_phase: "plan",
      outcome: "",
      actor: "agent",
      terminal: false,
    }),
  );
  const d = await cli(
    ["hooks", "test", "audit", "--point", "phase_changed", "--context", "entered.json"],
    { cwd, env },
  );
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /\n {2}notify: true → false\n/);
  Deno.writeTextFileSync(script, text.replace('BLOCKED_ACTORS=""', 'BLOCKED_ACTORS="eve octocat"'));
  const refused = await cli([
    "hooks",
    "test",
    "audit",
    "--point",
    "work_item_start",
    "--context",
    "conf/hooks/audit.context.json",
    "--format",
    "json",
  ], { cwd, env });
  assert.deepEqual(JSON.parse(refused.stdout).decisions, {
    proceed: false,
    reason: "octocat may not start work in this repository",
  });

  const v = await cli(["hooks", "validate"], { cwd, env });
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stdout, /^ok {4}audit \(command\): .*conf\/hooks\/audit\.sh is executable/);
});

Deno.test("hooks init remote: the serveHooks script runs, is tested and passes --online", async () => {
  const cwd = tree({ ".the-loop/cli-config.yaml": "" });
  const port = freePort();
  await initAndPaste(
    cwd,
    ["svc", "--kind", "remote", "--port", String(port)],
    join(cwd, ".the-loop/cli-config.yaml"),
  );
  const script = join(cwd, ".the-loop/hooks/svc.server.ts");
  await typeChecks(script);
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--config",
      join(cwd, ".the-loop/hooks/deno.json"),
      "--allow-net",
      "--allow-env",
      script,
    ],
    cwd,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    assert.equal(await firstLine(server.stdout), `svc: serving hooks on http://127.0.0.1:${port}/`);
    const t = await cli(
      [
        "hooks",
        "test",
        "svc",
        "--point",
        "session_spawn",
        "--context",
        ".the-loop/hooks/svc.context.json",
      ],
      { cwd },
    );
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^hook svc \(remote\) at session_spawn: decided/);
    assert.match(t.stdout, /→ "Follow the team's conventions\.\\n\\nImplement issue #42\."/);
    const v = await cli(["hooks", "validate", "--online"], { cwd });
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /svc \(remote\): no token needed; \/health answered 200/);
  } finally {
    server.kill("SIGTERM");
    await server.stdout.cancel().catch(() => {}); // the piped stream is locked/consumed
    await server.status;
  }
});

Deno.test("hooks init: refuses to overwrite without --force; a bad name is a usage error", async () => {
  const cwd = tree({ ".the-loop/cli-config.yaml": "" });
  const first = await cli(["hooks", "init", "mine", "--dir", "elsewhere"], { cwd });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /\n {4}path: "\.\.\/elsewhere\/mine\.ts"\n/);
  const file = join(cwd, "elsewhere/mine.ts");
  Deno.writeTextFileSync(file, "// my edits\n");
  const again = await cli(["hooks", "init", "mine", "--dir", "elsewhere"], { cwd });
  assert.equal(again.code, 1);
  assert.match(
    again.stderr,
    /elsewhere\/mine\.ts and .*mine\.context\.json already exist; use --force/,
  );
  assert.equal(Deno.readTextFileSync(file), "// my edits\n");
  const forced = await cli(["hooks", "init", "mine", "--dir", "elsewhere", "--force"], { cwd });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(Deno.readTextFileSync(file), /class Mine extends LifecycleHooks/);

  const bad = await cli(["hooks", "init", "Bad_Name"], { cwd });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /hook name "Bad_Name" must be lowercase letters, digits and -/);
  const kind = await cli(["hooks", "init", "x", "--kind", "lambda"], { cwd });
  assert.equal(kind.code, 2);
});

Deno.test("hooks sdk writes the SDK and a deno.json mapping @the-loop/hooks, keeping an existing one", async () => {
  const cwd = tree({ "hooks/deno.json": '{"imports": {}}\n' });
  const r = await cli(["hooks", "sdk", "--dir", "fresh"], { cwd });
  assert.equal(r.code, 0, r.stderr);
  const map = JSON.parse(await Deno.readTextFile(join(cwd, "fresh/deno.json")));
  assert.equal(map.imports["@the-loop/hooks"], "./the-loop-hooks/mod.ts");
  const hook = join(cwd, "fresh/h.ts");
  await Deno.writeTextFile(
    hook,
    'import { LifecycleHooks, type SessionSpawn } from "@the-loop/hooks";\n' +
      "export default class H extends LifecycleHooks {\n" +
      "  override session_spawn(ctx: SessionSpawn) {\n" +
      "    return { prompt: ctx.prompt + '!' };\n  }\n}\n",
  );
  await typeChecks(hook);

  const kept = await cli(["hooks", "sdk", "--dir", "hooks"], { cwd });
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /kept .*hooks\/deno\.json/);
  assert.equal(await Deno.readTextFile(join(cwd, "hooks/deno.json")), '{"imports": {}}\n');
  await Deno.stat(join(cwd, "hooks/the-loop-hooks/mod.ts"));
});

Deno.test("init, then two hooks init: each printed entry appended as is makes a valid config", async () => {
  const cwd = tree({});
  const config = join(cwd, ".the-loop/cli-config.yaml");
  assert.equal((await cli(["init"], { cwd })).code, 0);
  const first = await cli(["hooks", "init", "first"], { cwd });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^paste this into /m);
  await Deno.writeTextFile(config, snippetOf(first.stdout), { append: true });

  const second = await cli(["hooks", "init", "second"], { cwd });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /^add this entry to the hooks: list in /m);
  const entry = second.stdout.split("\n").filter((l) => /^ {2}- name: second$|^ {4}path: /.test(l))
    .join("\n");
  assert.equal(entry, '  - name: second\n    path: "hooks/second.ts"');
  await Deno.writeTextFile(config, entry + "\n", { append: true });

  const v = await cli(["config", "validate"], { cwd });
  assert.equal(v.code, 0, v.stderr);
  const listed = await cli(["hooks", "--format", "json"], { cwd });
  assert.deepEqual(JSON.parse(listed.stdout).hooks.map((h: { name: string }) => h.name), [
    "first",
    "second",
  ]);
});
