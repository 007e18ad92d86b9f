import assert from "node:assert/strict";
import { join } from "node:path";
import { adapterFor } from "../harness/mod.ts";
import type { HostedSession } from "../seams.ts";
import { harnessEnvironment, ProcessRunner } from "./mod.ts";
import { tmuxSetup, waitAlive } from "./_test_utils.ts";
import {
  type HarnessLogEntry,
  pathWithFakes,
  waitForHarnessLog,
} from "../../tests/fake_harness/mod.ts";

/** The daemon's secrets, set in this test process's own environment (what the runners inherit). */
const SECRETS: Record<string, string> = {
  THE_LOOP_GH_WEBHOOK_SECRET: "webhook-secret-value-9f1c",
  GH_TOKEN: "daemon-gh-token-value-77aa",
  GITHUB_TOKEN: "daemon-github-token-value-31bd",
  SOME_OTHER_VAR: "some-other-value-0c2e",
};
const AGENT_TOKEN = "agent-fine-grained-token-5e6f";
const EXTRAS: Record<string, string> = {
  ...SECRETS,
  THE_LOOP_AGENT_TOKEN: AGENT_TOKEN,
  PASSED_VAR: "passed-value",
  LC_TIME: "C.UTF-8",
  TZ: "Europe/Paris",
};
const HARNESS_ENV = { pass: ["PASSED_VAR", "UNSET_VAR"], set: { SET_VAR: "set-value" } };

/** Runs `fn` with `EXTRAS` in `Deno.env` (and so in `Deno.env.toObject()`), restoring it after. */
async function withDaemonEnv(fn: () => Promise<void>): Promise<void> {
  const before = Object.fromEntries(Object.keys(EXTRAS).map((k) => [k, Deno.env.get(k)]));
  for (const [k, v] of Object.entries(EXTRAS)) Deno.env.set(k, v);
  try {
    await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) Deno.env.delete(k);
      else Deno.env.set(k, v);
    }
  }
}

/** No secret of the daemon's, by name or by value, in `env` (but `GH_TOKEN` as the agent's). */
function assertClean(env: Record<string, string>, what: string): void {
  for (const [name, value] of Object.entries(SECRETS)) {
    if (name === "GH_TOKEN") {
      assert.ok(env.GH_TOKEN === undefined || env.GH_TOKEN === AGENT_TOKEN, `${what}: GH_TOKEN`);
    } else assert.equal(env[name], undefined, `${what} holds ${name}`);
    assert.ok(!Object.values(env).includes(value), `${what} holds the value of ${name}`);
  }
  assert.equal(env.THE_LOOP_AGENT_TOKEN, undefined, `${what} holds the agent token's variable`);
}

/** The environ a fake harness logged at boot: there must be one, or a clean check proves nothing. */
function environOf(boot: HarnessLogEntry): Record<string, string> {
  assert.ok(boot.environ, "the fake harness logged its /proc/self/environ");
  return boot.environ;
}

/** What the harness must see: the allowlist, harnessEnv, the agent token as GH_TOKEN. */
function assertGiven(env: Record<string, string>, what: string): void {
  assert.equal(env.HOME, Deno.env.get("HOME"), `${what}: HOME`);
  assert.equal(env.LC_TIME, "C.UTF-8", `${what}: LC_TIME`);
  assert.equal(env.TZ, "Europe/Paris", `${what}: TZ`);
  assert.equal(env.PASSED_VAR, "passed-value", `${what}: harnessEnv.pass`);
  assert.equal(env.SET_VAR, "set-value", `${what}: harnessEnv.set`);
  assert.equal(env.UNSET_VAR, undefined, `${what}: an unset pass name`);
  assert.equal(env.GH_TOKEN, AGENT_TOKEN, `${what}: agentToken as GH_TOKEN`);
}

Deno.test("harnessEnvironment: the allowlist, then pass, then set, then the agent's token", () => {
  const base = {
    PATH: "/bin",
    HOME: "/home/u",
    USER: "u",
    LOGNAME: "u",
    SHELL: "/bin/sh",
    LANG: "C",
    LC_ALL: "C",
    LC_CTYPE: "C",
    TERM: "xterm",
    COLORTERM: "truecolor",
    TZ: "UTC",
    TMPDIR: "/tmp",
    LCX: "not a locale variable",
    PASSED: "p",
    ...SECRETS,
    AGENT: "agent-token",
  };
  assert.deepEqual(harnessEnvironment({ base }), {
    PATH: "/bin",
    HOME: "/home/u",
    USER: "u",
    LOGNAME: "u",
    SHELL: "/bin/sh",
    LANG: "C",
    LC_ALL: "C",
    LC_CTYPE: "C",
    TERM: "xterm",
    COLORTERM: "truecolor",
    TZ: "UTC",
    TMPDIR: "/tmp",
  });
  const env = harnessEnvironment({
    base,
    harnessEnv: { pass: ["PASSED", "MISSING"], set: { TZ: "Asia/Tokyo", NEW: "n" } },
    agentTokenEnv: "AGENT",
  });
  assert.equal(env.PASSED, "p");
  assert.equal("MISSING" in env, false);
  assert.equal(env.TZ, "Asia/Tokyo");
  assert.equal(env.NEW, "n");
  assert.equal(env.GH_TOKEN, "agent-token");
  assert.equal(env.AGENT, undefined);
  for (const name of ["THE_LOOP_GH_WEBHOOK_SECRET", "GITHUB_TOKEN", "SOME_OTHER_VAR", "LCX"]) {
    assert.equal(env[name], undefined, name);
  }
  // an agent token variable that is unset gives no GH_TOKEN at all (not the daemon's)
  assert.equal(harnessEnvironment({ base, agentTokenEnv: "NOT_SET" }).GH_TOKEN, undefined);
});

Deno.test("harnessEnvironment: the webhook secret's variable is withheld, even allowlisted or passed", () => {
  const base = { PATH: "/bin", LC_HOOK: "lc-secret", THE_LOOP_GH_WEBHOOK_SECRET: "s", TOK: "t" };
  const env = harnessEnvironment({
    base,
    harnessEnv: { pass: ["THE_LOOP_GH_WEBHOOK_SECRET", "LC_HOOK"], set: { LC_HOOK: "x" } },
    withhold: ["LC_HOOK"],
  });
  assert.deepEqual(env, { PATH: "/bin" });
  // a secretEnv named as the agent's token variable gives no GH_TOKEN
  assert.equal(
    harnessEnvironment({ base, agentTokenEnv: "LC_HOOK", withhold: ["LC_HOOK"] }).GH_TOKEN,
    undefined,
  );
  assert.equal(harnessEnvironment({ base, agentTokenEnv: "TOK" }).GH_TOKEN, "t");
});

Deno.test("process runner: the harness's /proc/self/environ holds none of the daemon's secrets", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-env-" }));
  const harnessLog = join(dir, "harness.jsonl");
  try {
    await withDaemonEnv(async () => {
      const runner = new ProcessRunner({
        adapter: adapterFor,
        extraArgs: () => [],
        logDir: join(dir, "logs"),
        timeoutMs: 30_000,
        harnessEnv: HARNESS_ENV,
        agentTokenEnv: "THE_LOOP_AGENT_TOKEN",
        env: { PATH: pathWithFakes(), FAKE_HARNESS_LOG: harnessLog },
      });
      const session: HostedSession = {
        ref: "github:octo/repo#1",
        slug: "github-octo-repo-1",
        harness: "claude",
        harnessSessionId: "",
        cwd: dir,
        tmuxTarget: "",
      };
      await runner.spawn(session, "hello", { resume: false });
    });
    const [boot] = await waitForHarnessLog(harnessLog, (es) => es.some((e) => e.event === "boot"));
    const env = environOf(boot);
    assertClean(env, "the harness's environment");
    assertGiven(env, "the harness's environment");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** `NAME=value` lines of `show-environment` as a record (`-NAME` lines: removed, left out). */
function parseShowEnvironment(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/**
 * `/proc/<pid>/environ` as a record, read by `cat`: Deno asks for --allow-all to read a file under
 * /proc/<pid>, which the suite's permissions (the `the-loop` task's) do not give.
 */
async function procEnviron(pid: number): Promise<Record<string, string>> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/environ`], stdout: "piped" })
    .output();
  assert.ok(out.success, `cat /proc/${pid}/environ failed`);
  const raw = new TextDecoder().decode(out.stdout);
  const env: Record<string, string> = {};
  for (const entry of raw.split("\0").filter(Boolean)) {
    const eq = entry.indexOf("=");
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

for (const control of [false, true]) {
  Deno.test(`tmux runner${control ? " (control client)" : ""}: no secret in show-environment nor the pane's environ`, async () => {
    await withDaemonEnv(async () => {
      const t = await tmuxSetup({
        control,
        environment: { harnessEnv: HARNESS_ENV, agentTokenEnv: "THE_LOOP_AGENT_TOKEN" },
        // a relaunch's resume fails, so its fresh boot respawns the pane the resume left
        env: { FAKE_HARNESS_RESUME_FAIL: "1" },
      });
      try {
        const s = t.session(1);
        await t.runner.spawn(s, "hello", { resume: false });
        const [boot] = await waitForHarnessLog(
          t.harnessLog,
          (es) => es.some((e) => e.event === "boot"),
        );
        const harness = environOf(boot);
        assertClean(harness, "the harness's /proc/self/environ");
        assertGiven(harness, "the harness's /proc/self/environ");
        const pid = Number(
          (await t.tmux("list-panes", "-t", `=${s.tmuxTarget}:`, "-F", "#{pane_pid}")).trim(),
        );
        assertClean(await procEnviron(pid), `/proc/${pid}/environ`);
        const global = parseShowEnvironment(await t.tmux("show-environment", "-g"));
        assertClean(global, "show-environment -g");
        const own = parseShowEnvironment(await t.tmux("show-environment", "-t", s.tmuxTarget));
        assertClean(own, `show-environment -t ${s.tmuxTarget}`);
        // the agent's token is never in a tmux argv: it is not among the session's -e variables
        assert.equal(own.GH_TOKEN, undefined);
        assert.equal(own.SET_VAR, "set-value");
        // a relaunch (the dispatcher's spawn with resume) gets the same: the resume in a new
        // session, and the fresh boot after it failed in its pane (`respawn-pane`: remain-on-exit
        // kept the dead one)
        Deno.kill(pid, "SIGKILL");
        await waitAlive(() => t.alive(s), false);
        await t.runner.spawn(s, "again", { resume: true });
        const boots = await waitForHarnessLog(
          t.harnessLog,
          (es) => es.filter((e) => e.event === "boot").length >= 3,
        );
        const [, resumed, fresh] = boots.filter((e) => e.event === "boot");
        assert.ok(resumed.argv?.includes("--resume"), "the relaunch tried to resume first");
        for (
          const [boot, what] of [[resumed, "a resumed"], [fresh, "a respawned pane's"]] as const
        ) {
          assertClean(environOf(boot), `${what} harness's environ`);
          assertGiven(environOf(boot), `${what} harness's environ`);
        }
      } finally {
        await t.cleanup();
      }
    });
  });
}

Deno.test("tmux runner: a server someone else started with the secrets in its environment passes none to the harness", async () => {
  const t = await tmuxSetup({ control: true });
  try {
    // the user's own server, started from a shell that exported the daemon's secrets
    const started = await new Deno.Command("tmux", {
      args: ["-L", t.socket, "new-session", "-d", "-s", "users-own"],
      env: { PATH: Deno.env.get("PATH") ?? "", TMUX_TMPDIR: t.dir, ...SECRETS },
      clearEnv: true,
    }).output();
    assert.ok(started.success, "the user's tmux server started");
    const s = t.session(1);
    await t.runner.spawn(s, "hello", { resume: false });
    const [boot] = await waitForHarnessLog(
      t.harnessLog,
      (es) => es.some((e) => e.event === "boot"),
    );
    assertClean(environOf(boot), "the harness's /proc/self/environ");
    const pid = Number(
      (await t.tmux("list-panes", "-t", `=${s.tmuxTarget}:`, "-F", "#{pane_pid}")).trim(),
    );
    assertClean(await procEnviron(pid), `/proc/${pid}/environ`);
    // and a relaunched one
    Deno.kill(pid, "SIGKILL");
    await waitAlive(() => t.alive(s), false);
    await t.runner.spawn(s, "again", { resume: true });
    const boots = await waitForHarnessLog(
      t.harnessLog,
      (es) => es.filter((e) => e.event === "boot").length >= 2,
    );
    assertClean(environOf(boots.filter((e) => e.event === "boot")[1]), "a relaunched harness");
  } finally {
    await t.cleanup();
  }
});
