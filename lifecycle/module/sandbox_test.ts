import assert from "node:assert/strict";
import { HookLoadError } from "./mod.ts";
import { fixture, loadFixture, relaxed } from "./_test_helpers.ts";

const T = { timeoutMs: 5000 };

async function reason(hook: Awaited<ReturnType<typeof loadFixture>>, ctx: Record<string, unknown>) {
  const { answer } = await hook.call("work_item_start", ctx, T);
  return answer?.reason;
}

Deno.test("read: denied by default; a grant allows exactly its directory", relaxed, async () => {
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
  "net: denied by default; a grant to 127.0.0.1:PORT allows that fetch",
  relaxed,
  async () => {
    const ac = new AbortController();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
      () => new Response("roster-ok"),
    );
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const bare = await loadFixture("sandbox.ts");
    const granted = await loadFixture("sandbox.ts", {
      permissions: { net: [`127.0.0.1:${server.addr.port}`] },
    });
    try {
      assert.equal(await reason(bare, { what: "fetch", url }), "denied:NotCapable");
      assert.equal(await reason(granted, { what: "fetch", url }), "ok:roster-ok");
    } finally {
      await bare.close();
      await granted.close();
      ac.abort();
      await server.finished;
    }
  },
);

Deno.test("env: denied by default; a grant allows that variable only", relaxed, async () => {
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

Deno.test("run: spawning a process is denied by default; a grant allows it", relaxed, async () => {
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

Deno.test("an npm: import is refused at load with file:line:col and why", relaxed, async () => {
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

Deno.test("an unknown permission kind is a load error", relaxed, async () => {
  await assert.rejects(
    loadFixture("plain.ts", { permissions: { network: true } as never }),
    /hook "plain": unknown permission "network"/,
  );
});

Deno.test("host-state APIs are refused inside the hook; query still works", relaxed, async () => {
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
