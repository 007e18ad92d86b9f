import assert from "node:assert/strict";
import { loadConfig } from "../config/mod.ts";
import { parseDeclaration } from "./declaration/mod.ts";
import { loadExecutors } from "./loader.ts";

const PLAIN = `export default {
  work_item_start(ctx: Record<string, unknown>) {
    return { reason: "module saw " + String(ctx.actor) };
  },
};
`;

async function declarationOf(yaml: string, files: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "loader-" });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text, { mode: 0o755 });
  }
  await Deno.writeTextFile(`${dir}/cli-config.yaml`, yaml);
  const env = (n: string) => Deno.env.get(n);
  const loaded = await loadConfig({ flag: `${dir}/cli-config.yaml`, env, cwd: dir });
  return parseDeclaration(loaded.config.hooks, {
    file: loaded.path ?? undefined,
    baseDir: loaded.baseDir,
    locate: loaded.locate,
  });
}

Deno.test("loadExecutors builds one executor per enabled entry, in order, of each kind", async () => {
  const decl = await declarationOf(
    "hooks:\n  - name: m\n    path: plain.ts\n  - name: r\n    url: https://hooks.example/x\n" +
      '  - name: c\n    command: ["./c.sh"]\n  - name: off\n    path: missing.ts\n    enabled: false\n',
    { "plain.ts": PLAIN, "c.sh": "#!/bin/sh\ncat >/dev/null\n" },
  );
  const { executors, entries, problems } = await loadExecutors(decl, {
    env: () => undefined,
    strict: true,
  });
  try {
    assert.deepEqual(problems, []);
    assert.deepEqual(executors.map((e) => [e.name, e.kind]), [
      ["m", "module"],
      ["r", "remote"],
      ["c", "command"],
    ]);
    assert.deepEqual(entries.map((e) => e.entry.name), ["m", "r", "c"]);
    assert.equal(executors[0].handles("work_item_start"), true);
    assert.equal(executors[0].handles("session_spawn"), false, "a module defaults to its methods");
    const res = await executors[0].call("work_item_start", { actor: "ada" }, { timeoutMs: 5000 });
    assert.deepEqual(res.answer, { reason: "module saw ada" });
  } finally {
    await Promise.all(executors.map((e) => e.close()));
  }
});

Deno.test("a module that cannot load is a problem naming the entry and its file:line:col", async () => {
  const decl = await declarationOf(
    "hooks:\n  - name: ok\n    path: plain.ts\n  - name: broken\n    path: missing.ts\n",
    { "plain.ts": PLAIN },
  );
  const { executors, entries, problems } = await loadExecutors(decl, {
    env: () => undefined,
    strict: false,
  });
  assert.deepEqual([executors.length, entries.length], [0, 0], "all or nothing");
  assert.equal(problems.length, 1);
  const [p] = problems;
  assert.match(p.file ?? "", /cli-config\.yaml$/);
  assert.deepEqual([p.line, p.col, p.path], [4, 5, "hooks[1]"]);
  assert.match(p.message, /^hook "broken": .*missing\.ts/);
});

Deno.test("non-strict loads a remote whose token variable is unset (the call fails later)", async () => {
  const decl = await declarationOf(
    "hooks:\n  - name: r\n    url: https://hooks.example/x\n    tokenEnv: THE_LOOP_TEST_UNSET\n",
  );
  const lax = await loadExecutors(decl, { env: () => undefined, strict: false });
  assert.deepEqual(lax.problems, []);
  assert.equal(lax.executors.length, 1);
  const strict = await loadExecutors(decl, { env: () => undefined, strict: true });
  assert.match(
    strict.problems[0].message,
    /^hook "r": .*THE_LOOP_TEST_UNSET \(tokenEnv\) is not set/,
  );
});
