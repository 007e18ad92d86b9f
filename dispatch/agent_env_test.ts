import assert from "node:assert/strict";
import { join } from "node:path";
import { capabilityFor } from "../daemon/mod.ts";
import denoJson from "../deno.json" with { type: "json" };
import { VERSION } from "../version.ts";
import { launcherScript, sessionEnvFor, shellQuote, writeLauncher } from "./agent_env.ts";

const KEY = new Uint8Array(32).fill(3);

Deno.test("sessionEnvFor: the capability, the work item, the socket, PATH with the launcher first", () => {
  const env = sessionEnvFor({
    socketPath: "/s/.the-loop/poll.sock",
    key: KEY,
    binDir: "/s/.the-loop/bin",
    basePath: "/usr/bin:/bin",
  })("github:octo/repo#7");
  assert.deepEqual(env, {
    THE_LOOP_SESSION: capabilityFor(KEY, "github:octo/repo#7"),
    THE_LOOP_WORK_ITEM: "github:octo/repo#7",
    THE_LOOP_CONTROL: "/s/.the-loop/poll.sock",
    PATH: "/s/.the-loop/bin:/usr/bin:/bin",
  });
  const bare = sessionEnvFor({ socketPath: "/p.sock", key: KEY, binDir: "/b" })("github:o/r#1");
  assert.equal(bare.PATH, "/b");
});

Deno.test("shellQuote: any path comes through sh as itself", async () => {
  for (const s of ["/plain/path", "/with space/x", "/it's/here", `/q"uote$HOME\`x\`/\\n`]) {
    const out = await new Deno.Command("sh", {
      args: ["-c", `printf %s ${shellQuote(s)}`],
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(out.stdout), s);
  }
});

Deno.test("launcherScript: deno run with the task's permissions, the checkout's config and main.ts", () => {
  const script = launcherScript({ deno: "/opt/deno", mainPath: "/src/it's/main.ts" });
  assert.match(script, /^#!\/bin\/sh\n/);
  assert.ok(
    script.includes(
      "exec '/opt/deno' run --cached-only --no-prompt --unstable-worker-options --allow-read " +
        "--allow-write --allow-net --allow-env --allow-run --config '/src/it'\\''s/deno.json' " +
        `'/src/it'\\''s/main.ts' "$@"`,
    ),
    script,
  );
  assert.match(
    launcherScript({ deno: "d", mainPath: "/m.ts", denoDir: "/c" }),
    /DENO_DIR='\/c' exec/,
  );
  // the same flags as the `the-loop` task users run
  const task = denoJson.tasks["the-loop"].split(/\s+/).filter((w) => w.startsWith("--"));
  assert.ok(script.includes(`run ${task.join(" ")} --config`), script);
});

Deno.test("writeLauncher: a compiled the-loop is a symlink to itself", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const binDir = join(dir, "bin");
    const path = await writeLauncher({ binDir, execPath: "/usr/local/bin/the-loop" });
    assert.equal(path, join(binDir, "the-loop"));
    assert.equal(await Deno.readLink(path), "/usr/local/bin/the-loop");
    // a second start replaces it (the binary moved)
    await writeLauncher({ binDir, execPath: "/opt/the-loop" });
    assert.equal(await Deno.readLink(path), "/opt/the-loop");
    assert.deepEqual((await Array.fromAsync(Deno.readDir(binDir))).map((e) => e.name), [
      "the-loop",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeLauncher: from source, `the-loop --version` runs through the launcher on the session's PATH", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const binDir = join(dir, "bin");
    const path = await writeLauncher({ binDir }); // this process is the deno CLI
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o755);
    const env = sessionEnvFor({
      socketPath: join(dir, "poll.sock"),
      key: KEY,
      binDir,
      basePath: "/usr/bin:/bin",
    })(
      "github:octo/repo#1",
    );
    const out = await new Deno.Command("sh", {
      args: ["-c", "the-loop --version"],
      cwd: dir,
      env: { ...env, HOME: Deno.env.get("HOME") ?? "/root" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    assert.equal(out.code, 0, dec.decode(out.stderr));
    assert.equal(dec.decode(out.stdout).trim(), VERSION);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
