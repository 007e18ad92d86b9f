import assert from "node:assert/strict";
import { hookHostCommand } from "./mod.ts";
import { hookHostEnv, isDenoCli } from "./host_command.ts";
import { workerPermissions } from "./permissions.ts";
import { refusalReason, resolveSpecifier, SDK_DIR } from "./_resolve.ts";

Deno.test("workerPermissions: nothing by default, grants mapped, relative paths from baseDir", () => {
  assert.deepEqual(workerPermissions(undefined, "/cfg"), {
    read: false,
    write: false,
    net: false,
    env: false,
    run: false,
    ffi: false,
    sys: false,
    import: false,
  });
  const p = workerPermissions(
    {
      net: ["127.0.0.1:8080"],
      read: ["data", "/abs/dir"],
      env: ["ROSTER_TOKEN"],
      run: ["git", "./bin/x"],
      sys: true,
    },
    "/cfg",
  );
  assert.deepEqual(p.net, ["127.0.0.1:8080"]);
  assert.deepEqual(p.read, ["/cfg/data", "/abs/dir"]);
  assert.deepEqual(p.env, ["ROSTER_TOKEN"]);
  assert.deepEqual(p.run, ["git", "/cfg/bin/x"]);
  assert.equal(p.sys, true);
  assert.equal(p.write, false);
  assert.throws(
    () => workerPermissions({ read: "yes" } as never, "/cfg"),
    /must be true, false or a list of strings/,
  );
});

Deno.test("hookHostCommand from source: deno run, the task's flags, the heap cap, __hook-host", () => {
  const cmd = hookHostCommand({
    maxMemoryMb: 96,
    execPath: "/usr/local/bin/deno",
    mainPath: "/repo/main.ts",
    taskWords: ["run", "--cached-only", "--allow-read", "main.ts"],
  });
  assert.deepEqual(cmd, {
    command: "/usr/local/bin/deno",
    args: [
      "run",
      "--cached-only",
      "--allow-read",
      "--v8-flags=--max-old-space-size=192", // 96 and the runtime's 96
      "/repo/main.ts",
      "__hook-host",
    ],
    env: {},
  });
  // by default: this repo's the-loop task and main.ts
  const real = hookHostCommand({ maxMemoryMb: 128, execPath: "/x/deno" });
  assert.equal(real.args.at(-1), "__hook-host");
  assert.match(real.args.at(-2)!, /\/main\.ts$/);
  assert.ok(real.args.includes("--unstable-worker-options") && real.args.includes("--no-prompt"));
});

Deno.test("hookHostCommand compiled: the binary itself, cap via DENO_V8_FLAGS", () => {
  assert.deepEqual(
    hookHostCommand({ maxMemoryMb: 128, execPath: "/opt/the-loop", v8FlagsEnv: "" }),
    {
      command: "/opt/the-loop",
      args: ["__hook-host"],
      env: { DENO_V8_FLAGS: "--max-old-space-size=224" },
    },
  );
  const merged = hookHostCommand({
    maxMemoryMb: 64,
    execPath: "C:\\bin\\the-loop.exe",
    v8FlagsEnv: "--expose-gc",
  });
  assert.equal(merged.env.DENO_V8_FLAGS, "--expose-gc,--max-old-space-size=160");
  assert.equal(isDenoCli("C:/deno/deno.exe"), true);
  assert.equal(isDenoCli("/usr/bin/deno"), true);
  assert.equal(isDenoCli("/usr/bin/the-loop"), false);
});

Deno.test("refusalReason: relative and the SDK pass; everything else says why", () => {
  for (const ok of ["./a.ts", "../b/c.ts", "@the-loop/hooks"]) {
    assert.equal(refusalReason(ok), undefined);
  }
  assert.match(refusalReason("npm:yaml")!, /outside the hook's sandbox/);
  assert.match(refusalReason("https://x/y.ts")!, /fetched with the-loop's permissions/);
  assert.match(refusalReason("node:fs")!, /Node built-ins/);
  assert.match(refusalReason("yaml")!, /bare names/);
  assert.match(refusalReason("/etc/x.ts")!, /absolute paths/);
  assert.match(refusalReason("data:text/javascript,1")!, /data: URLs are not allowed/);
  assert.equal(resolveSpecifier("@the-loop/hooks", "/h/x.ts"), `${SDK_DIR}/mod.ts`);
  assert.equal(resolveSpecifier("../lib/y.ts", "/h/x/z.ts"), "/h/lib/y.ts");
});

Deno.test("a permission error names the hook's grant, not a CLI flag", async () => {
  const { permissionHint } = await import("./_worker_messages.ts");
  assert.equal(
    permissionHint(
      'NotCapable: Requires read access to "/x", run again with the --allow-read flag',
    ),
    'NotCapable: Requires read access to "/x" (not granted to this hook: add it to the entry\'s permissions.read)',
  );
});

Deno.test("hookHostEnv: what deno needs and the granted names, never the rest", () => {
  const env = {
    PATH: "/bin",
    HOME: "/home/op",
    DENO_DIR: "/cache/deno",
    DENO_AUTH_TOKENS: "tok@registry",
    GITHUB_TOKEN: "ghp_x",
    ROSTER_TOKEN: "r",
    https_proxy: "http://proxy:3128",
    SystemRoot: "C:\\Windows",
  };
  assert.deepEqual(hookHostEnv({ grant: ["ROSTER_TOKEN"], env }), {
    PATH: "/bin",
    HOME: "/home/op",
    DENO_DIR: "/cache/deno",
    ROSTER_TOKEN: "r",
    https_proxy: "http://proxy:3128",
    SystemRoot: "C:\\Windows",
  });
  assert.equal(hookHostEnv({ grant: false, env })?.GITHUB_TOKEN, undefined);
  assert.equal(hookHostEnv({ grant: undefined, env })?.ROSTER_TOKEN, undefined);
  // a hook granted the whole environment gets it: inherit, no clearEnv
  assert.equal(hookHostEnv({ grant: true, env }), undefined);
  assert.equal(hookHostEnv({ grant: "inherit", env }), undefined);
});

Deno.test("a hook's stack keeps its own frames and drops Deno's internal ones", async () => {
  const { hookStack } = await import("./_worker_messages.ts");
  const stack = [
    "Error: roster unavailable",
    "    at Boom.work_item_start (file:///srv/hooks/boom.ts:5:11)",
    "    at innerInvokeEventListeners (ext:deno_web/02_event.js:1:8095)",
    "    at dispatchWorkerMessage (ext:runtime_main/js/99_main.js:1:4952)",
    "    at ext:core/01_core.js:1:2",
  ].join("\n");
  assert.equal(
    hookStack(stack),
    "Error: roster unavailable\n    at Boom.work_item_start (file:///srv/hooks/boom.ts:5:11)",
  );
});
