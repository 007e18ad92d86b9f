/**
 * A session's own variables (`HostedSession.env`: its capability, its work item, the control
 * socket, `PATH` with the-loop's launcher first) reach the harness — a process run (spawn and
 * delivery) and a tmux pane (boot and respawn) — over the environment the runner builds, and no
 * secret of the daemon's comes with them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { capabilityFor } from "../../daemon/mod.ts";
import { pathWithFakes, waitForHarnessLog } from "../../tests/fake_harness/mod.ts";
import { sessionEnvFor } from "../agent_env.ts";
import { adapterFor } from "../harness/mod.ts";
import type { HostedSession } from "../seams.ts";
import { ProcessRunner } from "./mod.ts";
import { tmuxSetup, waitAlive } from "./_test_utils.ts";

const KEY = new Uint8Array(32).fill(9);
const SECRET = "daemon-secret-value-4d1a";

/** The env a session gets, the fakes on PATH after the launcher's folder. */
function envOf(dir: string, ref: string): Record<string, string> {
  return sessionEnvFor({
    socketPath: join(dir, "poll.sock"),
    key: KEY,
    binDir: join(dir, "bin"),
    basePath: pathWithFakes(),
  })(ref);
}

function assertSession(env: Record<string, string>, dir: string, ref: string, what: string) {
  assert.equal(env.THE_LOOP_SESSION, capabilityFor(KEY, ref), `${what}: THE_LOOP_SESSION`);
  assert.equal(env.THE_LOOP_WORK_ITEM, ref, `${what}: THE_LOOP_WORK_ITEM`);
  assert.equal(env.THE_LOOP_CONTROL, join(dir, "poll.sock"), `${what}: THE_LOOP_CONTROL`);
  // the fake harness is a python script: pyenv's shims, where there are, put their own first
  assert.ok(
    env.PATH?.includes(`${join(dir, "bin")}:${pathWithFakes()}`),
    `${what}: PATH is ${env.PATH}`,
  );
  assert.ok(!Object.values(env).includes(SECRET), `${what} holds the daemon's secret`);
  assert.equal(env.GH_TOKEN, undefined, `${what}: GH_TOKEN`);
}

/** `/proc/<pid>/environ`, read by `cat` (Deno asks for --allow-all to read it itself). */
async function procEnviron(pid: number): Promise<Record<string, string>> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/environ`], stdout: "piped" })
    .output();
  assert.ok(out.success, `cat /proc/${pid}/environ failed`);
  const env: Record<string, string> = {};
  for (const entry of new TextDecoder().decode(out.stdout).split("\0").filter(Boolean)) {
    const eq = entry.indexOf("=");
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

Deno.test("process runner: a session's variables reach its spawn and its deliveries", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-senv-" }));
  const harnessLog = join(dir, "harness.jsonl");
  const ref = "github:octo/repo#1";
  try {
    const runner = new ProcessRunner({
      adapter: adapterFor,
      extraArgs: () => [],
      logDir: join(dir, "logs"),
      timeoutMs: 30_000,
      baseEnv: { PATH: "/usr/bin:/bin", HOME: dir, GH_TOKEN: SECRET },
      env: { FAKE_HARNESS_LOG: harnessLog },
    });
    const session: HostedSession = {
      ref,
      slug: "github-octo-repo-1",
      harness: "claude",
      harnessSessionId: "",
      cwd: dir,
      tmuxTarget: "",
      env: envOf(dir, ref),
    };
    const { harnessSessionId } = await runner.spawn(session, "hello", { resume: false });
    await runner.deliver({ ...session, harnessSessionId }, "more", {});
    const boots = (await waitForHarnessLog(
      harnessLog,
      (es) => es.filter((e) => e.event === "boot").length >= 2,
    )).filter((e) => e.event === "boot");
    for (const [i, boot] of boots.entries()) {
      assert.ok(boot.environ, "the fake harness logged its environ");
      assertSession(boot.environ, dir, ref, i === 0 ? "the spawn" : "the delivery");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const control of [false, true]) {
  Deno.test(`tmux runner${control ? " (control client)" : ""}: a session's variables reach its pane, its PATH over the pane's, and a respawn`, async () => {
    const t = await tmuxSetup({
      control,
      environment: { baseEnv: { PATH: "/usr/bin:/bin", HOME: "/nowhere", GH_TOKEN: SECRET } },
      env: { FAKE_HARNESS_RESUME_FAIL: "1" },
    });
    try {
      const s = { ...t.session(1) };
      s.env = envOf(t.dir, s.ref);
      await t.runner.spawn(s, "hello", { resume: false });
      const [boot] = await waitForHarnessLog(
        t.harnessLog,
        (es) => es.some((e) => e.event === "boot"),
      );
      assert.ok(boot.environ);
      assertSession(boot.environ, t.dir, s.ref, "the harness's environ");
      const pid = Number(
        (await t.tmux("list-panes", "-t", `=${s.tmuxTarget}:`, "-F", "#{pane_pid}")).trim(),
      );
      assertSession(await procEnviron(pid), t.dir, s.ref, `/proc/${pid}/environ`);
      // a relaunch: the resume fails, the fresh boot respawns the pane; both get them
      Deno.kill(pid, "SIGKILL");
      await waitAlive(() => t.alive(s), false);
      await t.runner.spawn(s, "again", { resume: true });
      const boots = (await waitForHarnessLog(
        t.harnessLog,
        (es) => es.filter((e) => e.event === "boot").length >= 3,
      )).filter((e) => e.event === "boot");
      for (const b of boots.slice(1)) {
        assert.ok(b.environ);
        assertSession(b.environ, t.dir, s.ref, "a relaunched harness's environ");
      }
      const respawned = Number(
        (await t.tmux("list-panes", "-t", `=${s.tmuxTarget}:`, "-F", "#{pane_pid}")).trim(),
      );
      assertSession(await procEnviron(respawned), t.dir, s.ref, "the respawned pane");
    } finally {
      await t.cleanup();
    }
  });
}
