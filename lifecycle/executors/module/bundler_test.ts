import assert from "node:assert/strict";
import { bundleHook, HookLoadError, stopBundler } from "./mod.ts";
import { fixture } from "./_test_utils.ts";

Deno.test(
  "bundleHook reads the hook and its relative imports, never the SDK",
  async () => {
    const b = await bundleHook(fixture("sdk_relative.ts"));
    assert.deepEqual(b.files, [fixture("sdk_relative.ts")]);
    assert.match(b.code, /class _?LifecycleHooks\b/);
    assert.match(b.code, /\/\/# sourceMappingURL=data:application\/json;base64,/);
    const plain = await bundleHook(fixture("plain.ts"));
    assert.deepEqual(plain.files.sort(), [fixture("_lib.ts"), fixture("plain.ts")]);
  },
);

Deno.test("bundles are cached until a bundled file's mtime changes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hook-cache-" });
  await Deno.writeTextFile(
    `${dir}/hook.ts`,
    `import { v } from "./v.ts";\nexport default { v };\n`,
  );
  await Deno.writeTextFile(`${dir}/v.ts`, `export const v = "one";\n`);
  try {
    const first = await bundleHook(`${dir}/hook.ts`);
    assert.equal(await bundleHook(`${dir}/hook.ts`), first);
    await Deno.writeTextFile(`${dir}/v.ts`, `export const v = "two";\n`);
    await Deno.utime(`${dir}/v.ts`, new Date(), new Date(Date.now() + 5000));
    const second = await bundleHook(`${dir}/hook.ts`);
    assert.notEqual(second, first);
    assert.match(second.code, /"two"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every non-relative import is refused, each with its location", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hook-refuse-" });
  const specs = [
    "jsr:@std/path",
    "https://example.com/x.ts",
    "node:child_process",
    "file:///etc/x.ts",
    "lodash",
    "/abs/x.ts",
  ];
  await Deno.writeTextFile(
    `${dir}/hook.ts`,
    specs.map((s, i) => `import * as m${i} from "${s}";`).join("\n") +
      `\nexport default [${specs.map((_, i) => `m${i}`).join(", ")}];\n`,
  );
  try {
    await assert.rejects(bundleHook(`${dir}/hook.ts`), (e: Error) => {
      assert.ok(e instanceof HookLoadError);
      specs.forEach((s, i) => {
        const col = `import * as m${i} from "`.length;
        assert.ok(
          e.message.includes(`${dir}/hook.ts:${i + 1}:${col}: import "${s}" refused: `),
          `${s}\n${e.message}`,
        );
      });
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a relative import of a missing file names the importing line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hook-missing-" });
  await Deno.writeTextFile(
    `${dir}/hook.ts`,
    `\nimport { x } from "./nope.ts";\nexport default { x };\n`,
  );
  try {
    await assert.rejects(
      bundleHook(`${dir}/hook.ts`),
      new RegExp(`${dir}/hook.ts:2:19: cannot read ${dir}/nope.ts`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stopBundler stops esbuild; the next bundle starts it again", async () => {
  await bundleHook(fixture("plain.ts"));
  await stopBundler();
  await stopBundler(); // idempotent
  const b = await bundleHook(fixture("hangs.ts"));
  assert.match(b.code, /answered/);
  await stopBundler();
});
