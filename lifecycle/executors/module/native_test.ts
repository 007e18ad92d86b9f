import assert from "node:assert/strict";
import { HookFailure, HookLoadError } from "../../executor.ts";
import { bundleHook, loadModuleHook, stopBundler } from "./mod.ts";
import { bundlerStarted } from "./bundler.ts";
import { nativeHook } from "./_native.ts";
import { strippedSources, trustedBlobs } from "./_native_trusted.ts";
import { RUNTIME_SOURCES } from "./_runtime_sources.ts";
import { SDK_SOURCES } from "../../sdk/sources.ts";
import { fixture } from "./_test_utils.ts";
import { sdkSubset, sdkValueExports } from "./_native_sdk.ts";
import * as sdk from "../../sdk/mod.ts";

const T = { timeoutMs: 10_000 };

/** A temp dir holding `files` (name → text); removed by the returned function. */
async function hookDir(
  files: Record<string, string>,
): Promise<{ dir: string; done(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-native-" });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return { dir, done: () => Deno.remove(dir, { recursive: true }) };
}

const load = (dir: string, file: string) =>
  loadModuleHook({ name: "native", path: `${dir}/${file}`, baseDir: dir });

Deno.test("native load: a hook whose imports are all read natively runs without esbuild; its errors point at its own file:line:col", async () => {
  const { dir, done } = await hookDir({
    "hook.ts": `import { LifecycleHooks, type WorkItemStart } from "@the-loop/hooks";
import { greet } from "./lib.ts";

export default class Native extends LifecycleHooks {
  override work_item_start(ctx: WorkItemStart) {
    if (ctx.actor === "boom") throw new Error("boom: " + greet(ctx.actor));
    return { proceed: true, reason: greet(ctx.actor) };
  }
}
`,
    "lib.ts": `export function greet(who: string): string {\n  return \`hi \${who}\`;\n}\n`,
  });
  await stopBundler();
  const hook = await load(dir, "hook.ts");
  try {
    assert.equal(bundlerStarted(), false, "esbuild was started for a hook read natively");
    const { answer } = await hook.call("work_item_start", { actor: "ana" }, T);
    assert.deepEqual(answer, { proceed: true, reason: "hi ana" });
    await assert.rejects(hook.call("work_item_start", { actor: "boom" }, T), (e: Error) => {
      assert.ok(e instanceof HookFailure, String(e));
      assert.match(e.message, /boom: hi boom/);
      assert.ok(e.message.includes(`${dir}/hook.ts:6:37`), e.message);
      assert.doesNotMatch(e.message, /blob:/);
      return true;
    });
  } finally {
    await hook.close();
  }
  const why: { reason?: string } = {};
  const native = await nativeHook(`${dir}/hook.ts`, why);
  assert.ok(native, why.reason);
  assert.deepEqual(native.files.sort(), [`${dir}/hook.ts`, `${dir}/lib.ts`]);
  for (const url of native.urls) URL.revokeObjectURL(url);
  await done();
});

Deno.test("native load: a top level that throws is the hook's own load error, not loaded again through esbuild", async () => {
  await stopBundler();
  await assert.rejects(
    loadModuleHook({ name: "import-throws", path: fixture("import_throws.ts"), baseDir: "/" }),
    (e: Error) => {
      assert.ok(e instanceof HookLoadError, String(e));
      assert.match(
        e.message,
        /^hook "import-throws": .*import_throws\.ts:3:9: .*no board configured/,
      );
      return true;
    },
  );
  assert.equal(bundlerStarted(), false, "the hook was loaded a second time, through esbuild");
});

Deno.test("native load: modules that do not link natively are bundled instead; a syntax error reads as the bundler's", async () => {
  const { dir, done } = await hookDir({
    // a type re-exported without `type`: esbuild drops it, Deno's linker cannot find it
    "reexport.ts": `export { Shape } from "./types.ts";
export default { work_item_start: () => ({ proceed: true, reason: "bundled" }) };
`,
    "types.ts": `export interface Shape { a: string }\n`,
    "syntax.ts": `export default {\n  work_item_start() { return 1 +; },\n};\n`,
  });
  await stopBundler();
  const hook = await load(dir, "reexport.ts");
  try {
    assert.equal(bundlerStarted(), true);
    const { answer } = await hook.call("work_item_start", {}, T);
    assert.deepEqual(answer, { proceed: true, reason: "bundled" });
  } finally {
    await hook.close();
  }
  const bundled = await bundleHook(`${dir}/syntax.ts`).then(
    () => "bundled",
    (e: Error) => e.message,
  );
  await assert.rejects(load(dir, "syntax.ts"), (e: Error) => {
    assert.ok(e instanceof HookLoadError, String(e));
    assert.ok(e.message.includes(bundled), `${e.message}\nvs\n${bundled}`);
    assert.ok(e.message.includes(`${dir}/syntax.ts:2:`), e.message);
    return true;
  });
  await stopBundler();
  await done();
});

Deno.test("native load: the test suite's hook fixtures load natively (so the sandbox tests cover that path); a refused import does not", async () => {
  for (const file of ["plain.ts", "sdk_hook.ts", "sdk_relative.ts", "sandbox.ts", "spins.ts"]) {
    const why: { reason?: string } = {};
    const native = await nativeHook(fixture(file), why);
    assert.ok(native, `${file}: ${why.reason}`);
    assert.ok(native.names.every(([url, name]) => url.startsWith("blob:") && /^file:/.test(name)));
    for (const url of native.urls) URL.revokeObjectURL(url);
  }
  const why: { reason?: string } = {};
  assert.equal(await nativeHook(fixture("npm_import.ts"), why), undefined);
  assert.match(why.reason!, /import "npm:yaml" refused/);
});

Deno.test("native load: every runtime and SDK file loads as plain JavaScript, its relative imports rewritten", () => {
  for (const sources of [RUNTIME_SOURCES, SDK_SOURCES]) {
    const stripped = strippedSources(sources);
    for (const [name, mod] of Object.entries(stripped)) {
      assert.equal(mod.type, "javascript", `${name} cannot be type-stripped: keep it erasable`);
      assert.equal(mod.text.length, sources[name].length);
    }
    const made: string[] = [];
    const urls = trustedBlobs(sources, made);
    assert.deepEqual(Object.keys(urls).sort(), Object.keys(sources).sort());
    for (const url of made) URL.revokeObjectURL(url);
  }
});

Deno.test("native load: an import of named SDK values loads only the files that define them, the same bindings", async () => {
  const known = sdkValueExports();
  assert.deepEqual([...known.keys()].sort(), Object.keys(sdk).sort());
  for (const [name, at] of known) {
    const mod = await import(new URL(`../../sdk/${at.file}`, import.meta.url).href);
    assert.equal(mod[at.name], (sdk as Record<string, unknown>)[name], name);
  }
  assert.equal(
    sdkSubset(["LifecycleHooks", "isPointName"], (f) => `<${f}>`),
    `export { LifecycleHooks } from "<hooks.ts>";\nexport { isPointName } from "<points.ts>";\n`,
  );
  assert.equal(sdkSubset(["WorkItemStart"], (f) => f), undefined, "a type has no value to export");
});
