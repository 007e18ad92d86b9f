import assert from "node:assert/strict";
import { bundleHook, HookLoadError, loadModuleHook } from "./mod.ts";

/** A temp dir laid out as `{root}/outside/…` and `{root}/hooks/…`; removed after `fn`. */
async function withTree(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "hook-tree-" }));
  await Deno.mkdir(`${root}/hooks/lib`, { recursive: true });
  await Deno.mkdir(`${root}/outside`);
  await Deno.writeTextFile(`${root}/outside/secret.json`, `{"token": "s3cret"}\n`);
  await Deno.writeTextFile(`${root}/outside/other_hook.ts`, `export const x = "other";\n`);
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function refusedAt(file: string, line: number, col: number, spec: string, why: RegExp) {
  return (e: Error) => {
    assert.ok(e instanceof HookLoadError, String(e));
    const head = `${file}:${line}:${col}: import "${spec}" refused: `;
    assert.ok(e.message.includes(head), `${head}\n${e.message}`);
    assert.match(e.message, why);
    assert.doesNotMatch(e.message, /s3cret/);
    return true;
  };
}

Deno.test("a relative import outside the hook's directory is refused; a subdir is fine", async () => {
  await withTree(async (root) => {
    const hook = `${root}/hooks/hook.ts`;
    await Deno.writeTextFile(`${root}/hooks/lib/helper.ts`, `export const h = "helped";\n`);
    await Deno.writeTextFile(
      hook,
      `import { h } from "./lib/helper.ts";\nimport s from "../outside/secret.json";\n` +
        `export default { h, s };\n`,
    );
    await assert.rejects(
      bundleHook(hook),
      refusedAt(hook, 2, 15, "../outside/secret.json", /only files in its own directory/),
    );
    // a file in lib/ climbing back up into hooks/ stays inside: allowed
    await Deno.writeTextFile(`${root}/hooks/lib/up.ts`, `export { h } from "../lib/helper.ts";\n`);
    await Deno.writeTextFile(hook, `import { h } from "./lib/up.ts";\nexport default { h };\n`);
    const b = await bundleHook(hook);
    assert.match(b.code, /"helped"/);
    assert.deepEqual(b.files.sort(), [
      `${root}/hooks/hook.ts`,
      `${root}/hooks/lib/helper.ts`,
      `${root}/hooks/lib/up.ts`,
    ]);
  });
});

Deno.test("a symlink inside the hook's directory that points outside is refused", async () => {
  await withTree(async (root) => {
    const hook = `${root}/hooks/hook.ts`;
    await Deno.symlink(`${root}/outside/other_hook.ts`, `${root}/hooks/linked.ts`);
    await Deno.symlink(`${root}/outside`, `${root}/hooks/lib/dir`);
    await Deno.writeTextFile(hook, `import { x } from "./linked.ts";\nexport default { x };\n`);
    await assert.rejects(
      bundleHook(hook),
      refusedAt(hook, 1, 19, "./linked.ts", /through a symlink to .*outside\/other_hook\.ts/),
    );
    await Deno.writeTextFile(
      hook,
      `import s from "./lib/dir/secret.json";\nexport default { s };\n`,
    );
    await assert.rejects(
      bundleHook(hook),
      refusedAt(hook, 1, 15, "./lib/dir/secret.json", /through a symlink/),
    );
    // a symlink that stays inside is fine
    await Deno.writeTextFile(`${root}/hooks/lib/v.ts`, `export const v = "inside";\n`);
    await Deno.symlink(`${root}/hooks/lib/v.ts`, `${root}/hooks/v_link.ts`);
    await Deno.writeTextFile(hook, `import { v } from "./v_link.ts";\nexport default { v };\n`);
    assert.match((await bundleHook(hook)).code, /"inside"/);
  });
});

Deno.test("only .ts/.mts/.tsx/.js/.mjs/.jsx/.json files can be imported", async () => {
  await withTree(async (root) => {
    const hook = `${root}/hooks/hook.ts`;
    await Deno.writeTextFile(`${root}/hooks/notes.txt`, "hello\n");
    await Deno.writeTextFile(`${root}/hooks/m.mts`, `export const m = "mts";\n`);
    await Deno.writeTextFile(hook, `import n from "./notes.txt";\nexport default { n };\n`);
    await assert.rejects(
      bundleHook(hook),
      refusedAt(hook, 1, 15, "./notes.txt", /only \.ts, \.mts, \.tsx, \.js, \.mjs, \.jsx, \.json/),
    );
    await Deno.writeTextFile(hook, `import { m } from "./m.mts";\nexport default { m };\n`);
    assert.match((await bundleHook(hook)).code, /"mts"/);
  });
});

Deno.test("a computed import() is refused at bundle time with file:line:col", async () => {
  await withTree(async (root) => {
    const hook = `${root}/hooks/hook.ts`;
    await Deno.writeTextFile(
      hook,
      `const fs = ["node", "fs"].join(":");\n` +
        `// import(commented) and "import(quoted)" are not imports\n` +
        `export default { load: () => import(fs), lit: () => import("./lib/ok.ts") };\n`,
    );
    await Deno.writeTextFile(`${root}/hooks/lib/ok.ts`, `export const ok = 1;\n`);
    await assert.rejects(bundleHook(hook), (e: Error) => {
      assert.ok(e instanceof HookLoadError);
      assert.ok(
        e.message.includes(`${hook}:3:30: import() with a computed specifier refused: `),
        e.message,
      );
      assert.equal(e.message.split("\n").length, 1, e.message);
      return true;
    });
  });
});

Deno.test("a computed import() the scan misses still cannot load anything", async () => {
  await withTree(async (root) => {
    const hook = `${root}/hooks/hook.ts`;
    // after `)` the scan reads `/` as division, so the `'` opens a "string" hiding the import
    await Deno.writeTextFile(
      hook,
      `const fs = ["node", "fs"].join(":");\nexport default { async work_item_start() {\n` +
        `  if (fs) /'/.test(fs); return { reason: await import(fs).then(() => "imported", ` +
        `(e: Error) => e.message) };\n} };\n`,
    );
    const exec = await loadModuleHook({ name: "sneaky", path: hook, baseDir: root });
    try {
      const { answer } = await exec.call("work_item_start", {}, { timeoutMs: 5000 });
      assert.match(String(answer?.reason), /Dynamic require of "node:fs" is not supported/);
    } finally {
      await exec.close();
    }
  });
});
