import assert from "node:assert/strict";
import { baseEnv, cli, taskArgs } from "./_test_utils.ts";
import denoJson from "../deno.json" with { type: "json" };
import { VERSION } from "../version.ts";
import { buildProgram } from "../commands/mod.ts";
import { silentContext } from "../commands/context.ts";
import type { Command } from "commander";

/** Every command path, e.g. ["hooks", "test"]. */
/** Whether a command is hidden (`demo agent`: the daemon runs it, nobody types it). */
const hidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;

function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.filter((c) => !hidden(c)).flatMap((
    c,
  ) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

Deno.test("--version prints the version from deno.json", async () => {
  assert.equal(VERSION, denoJson.version);
  const r = await cli(["--version"]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trim(), VERSION);
});

Deno.test("--help lists every command and exits 0", async () => {
  const r = await cli(["--help"]);
  assert.equal(r.code, 0);
  const names = buildProgram(silentContext()).commands.map((c) => c.name());
  assert.deepEqual(names, [
    "init",
    "demo",
    "config",
    "poll",
    "gh-webhook",
    "sessions",
    "advance",
    "ask",
    "reply",
    "verdict",
    "events",
    "hooks",
    "loops",
    "notify",
    "critic",
    "scenarios",
    "ui",
    "completions",
  ]);
  for (const c of names) assert.match(r.stdout, new RegExp(`\\n  ${c}\\b`));
  assert.match(r.stdout, /-c, --config <path>/);
});

Deno.test("no command shows help on stderr and exits 2", async () => {
  const r = await cli([]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Usage: the-loop/);
  assert.equal(r.stdout, "");
});

Deno.test("an unknown command is a one-line usage error with a suggestion, exit 2", async () => {
  const r = await cli(["evnts"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split("\n").length, 1);
  assert.match(r.stderr, /unknown command 'evnts' \(did you mean events\?\)/);
});

Deno.test("an unknown flag is a one-line usage error, exit 2", async () => {
  const r = await cli(["events", "--limt", "3"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split("\n").length, 1);
  assert.match(r.stderr, /unknown option '--limt' \(did you mean --limit\?\)/);
});

Deno.test("every command's --help prints its usage and exits 0", async () => {
  const paths = commandPaths(buildProgram(silentContext()));
  assert.ok(paths.length >= 10, `only ${paths.length} commands`);
  const results = await Promise.all(paths.map((p) => cli([...p, "--help"])));
  results.forEach((r, i) => {
    const name = paths[i].join(" ");
    assert.equal(r.code, 0, `${name} --help: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: the-loop ${name}\\b`), name);
  });
});

Deno.test("a usage error names the help of the command it happened in", async () => {
  const r = await cli(["hooks", "test", "x", "--point"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /see 'the-loop hooks test --help'\n$/);
  const choice = await cli(["config", "show", "--format", "toml"]);
  assert.equal(choice.code, 2);
  assert.match(
    choice.stderr,
    /Allowed choices are yaml, json; see 'the-loop config show --help'\n$/,
  );
});

Deno.test("output piped into a reader that goes away ends quietly, exit 0", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/events.jsonl`;
  const line = JSON.stringify({
    ts: "2026-11-29T10:00:00.000Z",
    source: "t",
    event: "x.y",
    level: "info",
    pid: 1,
    pad: "p".repeat(200),
  }) + "\n";
  await Deno.writeTextFile(log, line.repeat(50_000));
  const args = [...taskArgs(), "events", "--file", log, "--limit", "0", "--format", "jsonl"];
  const status = `${dir}/status`;
  const out = await new Deno.Command("sh", {
    args: [
      "-c",
      '("$0" "$@"; echo $? > "$STATUS") | head -n 1 >/dev/null',
      Deno.execPath(),
      ...args,
    ],
    cwd: dir,
    env: { ...baseEnv(dir), STATUS: status },
    clearEnv: true,
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(out.stderr), "");
  assert.equal((await Deno.readTextFile(status)).trim(), "0");
  await Deno.remove(dir, { recursive: true });
});
