import assert from "node:assert/strict";
import { HookLoadError } from "./mod.ts";
import { fixture, loadFixture, scenario } from "./_test_utils.ts";

const T = { timeoutMs: 5000 };

async function reason(hook: Awaited<ReturnType<typeof loadFixture>>, ctx: Record<string, unknown>) {
  const { answer } = await hook.call("work_item_start", ctx, T);
  return answer?.reason;
}

Deno.test("read: denied by default; a grant allows exactly its directory", async () => {
  const base = await Deno.makeTempDir({ prefix: "hook-read-" });
  await Deno.mkdir(`${base}/granted`);
  await Deno.mkdir(`${base}/other`);
  await Deno.writeTextFile(`${base}/granted/roster.txt`, "alice");
  await Deno.writeTextFile(`${base}/other/secret.txt`, "token");
  const bare = await loadFixture("sandbox.ts");
  const granted = await loadFixture("sandbox.ts", {
    baseDir: base,
    permissions: { read: ["./granted"] },
  });
  try {
    assert.equal(
      await reason(bare, { what: "read", path: `${base}/granted/roster.txt` }),
      "denied:NotCapable",
    );
    assert.equal(
      await reason(granted, { what: "read", path: `${base}/granted/roster.txt` }),
      "ok:alice",
    );
    assert.equal(
      await reason(granted, { what: "read", path: `${base}/other/secret.txt` }),
      "denied:NotCapable",
    );
  } finally {
    await bare.close();
    await granted.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test(
  "net: denied by default; a grant to 127.0.0.1:PORT allows exactly that port",
  async () => {
    const ac = new AbortController();
    const serve = (body: string) =>
      Deno.serve(
        { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
        () => new Response(body),
      );
    const server = serve("roster-ok");
    const other = serve("other-ok");
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const otherUrl = `http://127.0.0.1:${other.addr.port}/`;
    const bare = await loadFixture("sandbox.ts");
    const granted = await loadFixture("sandbox.ts", {
      permissions: { net: [`127.0.0.1:${server.addr.port}`] },
    });
    try {
      assert.equal(await reason(bare, { what: "fetch", url }), "denied:NotCapable");
      assert.equal(await reason(granted, { what: "fetch", url }), "ok:roster-ok");
      assert.equal(await reason(granted, { what: "fetch", url: otherUrl }), "denied:NotCapable");
    } finally {
      await bare.close();
      await granted.close();
      ac.abort();
      await server.finished;
      await other.finished;
    }
  },
);

Deno.test("env: denied by default; a grant allows that variable only", async () => {
  Deno.env.set("HOOK_TEST_ROSTER", "r-123");
  Deno.env.set("HOOK_TEST_OTHER", "o-456");
  const bare = await loadFixture("sandbox.ts");
  const granted = await loadFixture("sandbox.ts", { permissions: { env: ["HOOK_TEST_ROSTER"] } });
  try {
    assert.equal(
      await reason(bare, { what: "env", name: "HOOK_TEST_ROSTER" }),
      "denied:NotCapable",
    );
    assert.equal(await reason(granted, { what: "env", name: "HOOK_TEST_ROSTER" }), "ok:r-123");
    assert.equal(
      await reason(granted, { what: "env", name: "HOOK_TEST_OTHER" }),
      "denied:NotCapable",
    );
  } finally {
    await bare.close();
    await granted.close();
  }
});

Deno.test("run: spawning a process is denied by default; a grant allows it", async () => {
  const bare = await loadFixture("sandbox.ts");
  const granted = await loadFixture("sandbox.ts", { permissions: { run: ["true"] } });
  try {
    assert.equal(await reason(bare, { what: "run" }), "denied:NotCapable");
    assert.equal(await reason(granted, { what: "run" }), "ok:0");
  } finally {
    await bare.close();
    await granted.close();
  }
});

Deno.test("an npm: import is refused at load with file:line:col and why", async () => {
  await assert.rejects(loadFixture("npm_import.ts"), (e: Error) => {
    assert.ok(e instanceof HookLoadError);
    assert.ok(
      e.message.includes(
        `${fixture("npm_import.ts")}:2:23: import "npm:yaml" refused: npm: packages`,
      ),
      e.message,
    );
    return true;
  });
});

Deno.test("an unknown permission kind is a load error", async () => {
  await assert.rejects(
    loadFixture("plain.ts", { permissions: { network: true } as never }),
    /hook "plain": unknown permission "network"/,
  );
});

Deno.test("host-state APIs are refused inside the hook; query still works", async () => {
  const hook = await loadFixture("host_state.ts");
  try {
    const refusals: Record<string, RegExp> = {
      signal: /Deno\.addSignalListener\(\) is not available to hooks/,
      request: /Deno\.permissions\.request\(\) is not available to hooks/,
      exit: /Deno\.exit\(\) is not available to hooks/,
      chdir: /Deno\.chdir\(\) is not available to hooks/,
      stdin: /Deno\.stdin is not available to hooks/,
      processSignal: /process\.on\("SIGTERM"\) is not available to hooks/,
      post: /postMessage\(\) is not available to hooks/,
      channel: /BroadcastChannel is not available to hooks/,
    };
    for (const [what, re] of Object.entries(refusals)) {
      assert.match(String(await reason(hook, { what })), re, what);
    }
    assert.equal(await reason(hook, { what: "query" }), "allowed");
    // the worker is still there and the host's cwd is untouched
    assert.match(String(await reason(hook, { what: "exit" })), /refused/);
    assert.notEqual(Deno.cwd(), "/");
  } finally {
    await hook.close();
  }
});

Deno.test("signalling the-loop's own process is refused (Deno.kill, process.kill)", async () => {
  // In a process of its own: were the guard missing, SIGKILL would end it, not the test runner.
  const out = await scenario("signal_self_scenario.ts", { ms: 60_000 });
  const stderr = out.stderr;
  assert.equal(out.code, 0, `the scenario died (signal ${out.signal}): ${stderr}`);
  const r = JSON.parse(out.stdout);
  const refusal = /is not available to hooks for this process or a process group/;
  assert.match(r.deno, /^Deno\.kill\(\) /);
  assert.match(r.deno, refusal);
  assert.match(r.node, /^process\.kill\(\) /);
  assert.match(r.node, refusal);
  assert.match(r.group, refusal);
});

Deno.test("code from strings, nested workers and Deno's internals are out of reach", async () => {
  const hook = await loadFixture("code_from_strings.ts");
  try {
    const { answer } = await hook.call("work_item_start", {}, T);
    const r = answer as Record<string, string>;
    const strings = /is not available to hooks: hooks cannot run code built from strings/;
    for (const key of ["eval", "indirectEval", "Function", "fnConstructor"]) {
      assert.match(r[key], strings, key);
    }
    for (const key of ["AsyncFunction", "GeneratorFunction", "AsyncGeneratorFunction"]) {
      assert.match(r[key], new RegExp(`^${key}\\(\\) ${strings.source}`), key);
    }
    assert.match(r.Worker, /new Worker\(\) is not available to hooks/);
    assert.equal(r.internals, "ran:undefined");
    assert.match(r.getBuiltinModule, /process\.getBuiltinModule\(\) is not available to hooks/);
    assert.equal(r.instanceOf, "ran:true");
    assert.equal(r.asyncName, "ran:AsyncFunction");
  } finally {
    await hook.close();
  }
});
