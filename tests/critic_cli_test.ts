/**
 * `the-loop critic list` and `critic run`, through the real CLI: critics declared in a
 * repository's `.the-loop/harness-config.yaml`, a harness critic run as the fake `claude`
 * (`tests/fake_harness/`), command critics as small python scripts (argv, never a shell); the
 * envelopes checked against `schema/cli/critic-list.json` and `critic-run.json`; exit 1 for a
 * round that failed (absent CLI, non-zero exit, timeout — the tree killed), exit 2 for a
 * misconfiguration (nothing spawned, no JSON).
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, cliSchema, tree } from "./_test_utils.ts";
import { pathWithFakes, processExists, readHarnessLog } from "./fake_harness/mod.ts";

const validRun = await cliSchema("critic-run");
const validList = await cliSchema("critic-list");

/** A script that prints its argv (after the script) and the env it was asked about, as JSON. */
const ECHO_PY = [
  "import json, os, sys",
  "names = os.environ.get('SHOW_ENV', '').split(',')",
  "files = {a: open(a).read() for a in sys.argv[1:] if a.startswith('/') and os.path.isfile(a)}",
  "print(json.dumps({'argv': sys.argv[1:], 'env': {n: os.environ.get(n) for n in names if n},",
  "  'files': files, 'cwd': os.getcwd()}))",
].join("\n") + "\n";

/** Starts a child that sleeps, writes both pids to a file, then sleeps itself. */
const SLEEP_PY = [
  "import subprocess, sys, time",
  "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])",
  "open(sys.argv[1], 'w').write(f'{__import__(\"os\").getpid()} {child.pid}')",
  "time.sleep(120)",
].join("\n") + "\n";

const CONFIG = (dir: string) =>
  [
    "reviews:",
    "  critics:",
    "    - name: claude-review",
    "      harness: claude",
    "      model: opus",
    "      env:",
    `        FAKE_HARNESS_LOG: ${join(dir, "harness.log")}`,
    "        FAKE_HARNESS_COST: '0.42'",
    "        FAKE_HARNESS_TOKENS: '1200'",
    "        FAKE_HARNESS_TURNS: '3'",
    "        REVIEW_MODE: strict",
    "    - name: echo",
    "      command: python3",
    "      args: [echo.py, '{prompt}', '{promptFile}', '--ref={workItem}', '{cwd}', '{model}']",
    "      model: m1",
    "      env: { SHOW_ENV: 'SHOW_ENV,REVIEW_MODE,GITHUB_TOKEN,GH_TOKEN,SECRET_OF_PARENT' }",
    "      timeoutSeconds: 30",
    "    - name: failing",
    "      command: python3",
    "      args: ['-c', 'import sys; sys.stderr.write(\"bad diff\\n\"); sys.exit(3)']",
    "    - name: absent",
    "      command: no-such-critic-cli",
    "    - name: sleeper",
    "      command: python3",
    `      args: [sleep.py, ${join(dir, "pids")}]`,
    "    - name: off",
    "      command: python3",
    `      args: ['-c', 'open("${join(dir, "ran")}", "w")']`,
    "      enabled: false",
    "    - name: later",
    "      harness: codex",
    "      env: { FAKE_HARNESS_TOKENS: '40' }",
  ].join("\n") + "\n";

function repo(extra: Record<string, string> = {}): string {
  const dir = tree({ "echo.py": ECHO_PY, "sleep.py": SLEEP_PY, ...extra });
  Deno.mkdirSync(join(dir, ".the-loop"));
  Deno.writeTextFileSync(join(dir, ".the-loop/harness-config.yaml"), CONFIG(dir));
  return dir;
}

const ENV = { PATH: pathWithFakes(), GITHUB_TOKEN: "ghp_parentSecretToken", SECRET_OF_PARENT: "x" };

Deno.test("critic list: a table, and JSON with the argv each critic would run", async () => {
  const root = repo();
  const t = await cli(["critic", "list", "--root", root], { env: ENV });
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /^Name +Kind +Harness +Model +Enabled +Timeout +Argv\n/);
  assert.match(
    t.stdout,
    /claude-review +harness +claude +opus +yes +600s +claude -p \{prompt\} --output-format json --permission-mode default --model opus/,
  );
  assert.match(t.stdout, /off +command +- +- +no/);
  const j = await cli(["critic", "list", "--root", root, "--format", "json"], { env: ENV });
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout);
  validList(doc);
  assert.equal(doc.file, join(root, ".the-loop/harness-config.yaml"));
  assert.deepEqual(doc.critics[0], {
    name: "claude-review",
    kind: "harness",
    harness: "claude",
    model: "opus",
    enabled: true,
    timeoutSeconds: 600,
    argv: [
      "claude",
      "-p",
      "{prompt}",
      "--output-format",
      "json",
      "--permission-mode",
      "default",
      "--model",
      "opus",
    ],
  });
  assert.deepEqual(doc.critics[1].argv, [
    "python3",
    "echo.py",
    "{prompt}",
    "{promptFile}",
    "--ref={workItem}",
    "{cwd}",
    "{model}",
  ]);
  assert.deepEqual(doc.critics.map((c: { name: string; enabled: boolean }) => c.enabled), [
    true,
    true,
    true,
    true,
    true,
    false,
    true,
  ]);
  // a codex critic: its adapter's headless form, approval ask (a read-only sandbox)
  assert.deepEqual(doc.critics[6].argv, [
    "codex",
    "exec",
    "--json",
    "--sandbox",
    "read-only",
    "--",
    "{prompt}",
  ]);
});

Deno.test("critic list: the root is the git top of the working directory; no file lists none", async () => {
  const root = repo({ "sub/dir/.keep": "" });
  const git = await new Deno.Command("git", { args: ["init", "-q"], cwd: root }).output();
  assert.ok(git.success);
  const r = await cli(["critic", "list", "--format", "json"], { cwd: join(root, "sub/dir") });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).root, root);
  const empty = tree();
  const none = await cli(["critic", "list"], { cwd: empty });
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, "");
  assert.match(none.stderr, /no critics declared in .*harness-config\.yaml/);
});

Deno.test("critic run: a harness critic (fake claude): answer, usage, model, env overlay, no secrets", async () => {
  const root = repo();
  const out = join(root, "out/envelope.json");
  const prompt = "Review this; $(touch pwned) `x` | y";
  const r = await cli(
    ["critic", "run", "claude-review", "--root", root, "--prompt", prompt, "--output-file", out],
    { env: ENV },
  );
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  validRun(doc);
  assert.deepEqual(
    [doc.critic, doc.harness, doc.model, doc.ok, doc.exitCode, doc.output, doc.error],
    ["claude-review", "claude", "opus", true, 0, "ok", null],
  );
  assert.deepEqual(doc.usage, { costUsd: 0.42, tokens: 1200, turns: 3 });
  assert.equal(typeof doc.durationSeconds, "number");
  assert.equal(Deno.readTextFileSync(out), r.stdout);
  const boot = (await readHarnessLog(join(root, "harness.log"))).find((e) => e.event === "boot");
  assert.ok(boot, "the fake claude ran");
  assert.deepEqual(boot.argv, [
    "-p",
    prompt,
    "--output-format",
    "json",
    "--permission-mode",
    "default",
    "--model",
    "opus",
  ]);
  assert.equal(boot.cwd, root);
  assert.ok(boot.environ, "the fake read its environment");
  {
    assert.equal(boot.environ.REVIEW_MODE, "strict");
    assert.equal(boot.environ.GITHUB_TOKEN, undefined);
    assert.equal(boot.environ.SECRET_OF_PARENT, undefined);
    assert.ok(boot.environ.PATH?.includes(ENV.PATH), boot.environ.PATH);
  }
  assert.equal(Deno.statSync(root).isDirectory && !existsSync(join(root, "pwned")), true);
});

Deno.test("critic run: a codex critic: its last agent message is the answer, its tokens the usage", async () => {
  const root = repo();
  const r = await cli(["critic", "run", "later", "--root", root, "--prompt", "-look"], {
    env: ENV,
  });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  validRun(doc);
  assert.deepEqual([doc.harness, doc.ok, doc.output], ["codex", true, "ok"]);
  assert.deepEqual(doc.usage, { turns: 1, tokens: 40 });
});

function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("critic run: a command critic gets its placeholders element-wise and the overlay, no secrets", async () => {
  const root = repo();
  Deno.writeTextFileSync(join(root, "prompt.md"), "line one; rm -rf /\nline 'two'\n");
  const r = await cli(
    [
      "critic",
      "run",
      "echo",
      "--root",
      root,
      "--prompt-file",
      "prompt.md",
      "--work-item",
      "github:octo/repo#7",
    ],
    { env: ENV, cwd: root },
  );
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  validRun(doc);
  assert.equal(doc.harness, null);
  assert.equal(doc.usage, null);
  const seen = JSON.parse(doc.output);
  const [p, promptFile, ref, cwd, model] = seen.argv;
  assert.equal(seen.argv.length, 5);
  assert.equal(p, "line one; rm -rf /\nline 'two'\n");
  assert.deepEqual([ref, cwd, model], ["--ref=github:octo/repo#7", root, "m1"]);
  assert.equal(seen.files[promptFile], p, "the prompt file held the prompt");
  assert.ok(!existsSync(promptFile), "the prompt file is removed after the round");
  assert.deepEqual(seen.env, {
    SHOW_ENV: "SHOW_ENV,REVIEW_MODE,GITHUB_TOKEN,GH_TOKEN,SECRET_OF_PARENT",
    REVIEW_MODE: null,
    GITHUB_TOKEN: null,
    GH_TOKEN: null,
    SECRET_OF_PARENT: null,
  });
});

Deno.test("critic run: --cwd is where the critic runs", async () => {
  const root = repo({ "elsewhere/.keep": "" });
  Deno.copyFileSync(join(root, "echo.py"), join(root, "elsewhere/echo.py"));
  const r = await cli(
    [
      "critic",
      "run",
      "echo",
      "--root",
      root,
      "--cwd",
      join(root, "elsewhere"),
      "--prompt",
      "p",
      "--work-item",
      "x",
    ],
    { env: ENV },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(JSON.parse(r.stdout).output).cwd, join(root, "elsewhere"));
});

Deno.test("critic run: a round that fails exits 1 with the envelope, ok false, and says why", async () => {
  const root = repo();
  const out = join(root, "failed.json");
  const cases: [string[], RegExp, Record<string, string>][] = [
    [
      ["failing", "--output-file", out],
      /python3 failed with exit code 3; its stderr ends: bad diff/,
      ENV,
    ],
    [["absent"], /no-such-critic-cli is not installed or not on PATH: install it/, ENV],
    [["claude-review"], /claude \(the claude CLI\) is not installed or not on PATH/, {
      PATH: "/usr/bin:/bin",
    }],
  ];
  for (const [args, want, env] of cases) {
    const r = await cli(["critic", "run", ...args, "--root", root, "--prompt", "p"], { env });
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    validRun(doc);
    assert.equal(doc.ok, false);
    assert.match(doc.error, want);
    assert.match(r.stderr, want);
    assert.equal(doc.problems[0].message, doc.error);
  }
  assert.equal(JSON.parse(Deno.readTextFileSync(out)).exitCode, 3);
});

Deno.test("critic run: past its timeout the critic's process tree is killed, exit 1", async () => {
  const root = repo();
  const r = await cli([
    "critic",
    "run",
    "sleeper",
    "--root",
    root,
    "--prompt",
    "p",
    "--timeout",
    "1",
  ], {
    env: ENV,
  });
  assert.equal(r.code, 1, r.stderr);
  const doc = JSON.parse(r.stdout);
  validRun(doc);
  assert.equal(doc.ok, false);
  assert.equal(doc.exitCode, null);
  assert.match(doc.error, /ran longer than 1s and was killed .*pass --timeout/);
  const pids = Deno.readTextFileSync(join(root, "pids")).trim().split(" ").map(Number);
  assert.equal(pids.length, 2);
  for (const pid of pids) assert.equal(await processExists(pid), false, `pid ${pid} is gone`);
});

Deno.test("critic run: a misconfiguration exits 2, spawns nothing and prints no JSON", async () => {
  const root = repo();
  const cases: [string[], RegExp][] = [
    [
      ["nope", "--prompt", "p"],
      /no critic "nope" in reviews\.critics; declared: claude-review, echo/,
    ],
    [["echoo", "--prompt", "p"], /\(did you mean "echo"\?\)/],
    [
      ["off", "--prompt", "p"],
      /harness-config\.yaml: reviews\.critics\[5\]: critic "off" is disabled/,
    ],
    [["echo", "--prompt", "p"], /uses \{workItem\} in its args: pass --work-item REF/],
    [["echo"], /give exactly one of --prompt TEXT or --prompt-file PATH/],
    [["echo", "--prompt", "p", "--prompt-file", "x"], /give exactly one of/],
    [["echo", "--prompt-file", "missing.md"], /--prompt-file missing\.md: cannot read it/],
    [["echo", "--prompt", "p", "--timeout", "soon"], /--timeout soon: must be a number of seconds/],
    [["echo", "--prompt", "p", "--cwd", "nowhere"], /--cwd nowhere: not a directory/],
  ];
  for (const [args, want] of cases) {
    const r = await cli(["critic", "run", ...args, "--root", root], { env: ENV, cwd: root });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, "", args.join(" "));
    assert.match(r.stderr, want, args.join(" "));
  }
  assert.ok(!existsSync(join(root, "ran")), "the disabled critic did not run");
});

Deno.test("critic run and list: a bad harness-config.yaml exits 2 at file:line:col", async () => {
  const bad = tree({
    ".the-loop/harness-config.yaml":
      "reviews:\n  critics:\n    - name: x\n      command: y\n      args: ['{nope}']\n",
  });
  const file = join(bad, ".the-loop/harness-config.yaml");
  for (const args of [["list"], ["run", "x", "--prompt", "p"]]) {
    const r = await cli(["critic", ...args, "--root", bad]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.ok(
      r.stderr.includes(`${file}:5:14: reviews.critics[0].args[0]: unknown placeholder {nope}`),
      r.stderr,
    );
  }
  const syntax = tree({ ".the-loop/harness-config.yaml": "reviews: [\n" });
  const r = await cli(["critic", "list", "--root", syntax, "--format", "json"]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /harness-config\.yaml:\d+:\d+: YAML syntax/);
});
