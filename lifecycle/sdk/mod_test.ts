import assert from "node:assert/strict";
import * as sdk from "./mod.ts";
import { SDK_SOURCES } from "./sources.ts";

const DIR = new URL("./", import.meta.url);
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^"';]*?\bfrom\s*"([^"]+)"|(?:^|\n)\s*import\s*"([^"]+)"/g;

/** Every file mod.ts reaches through its imports, with each specifier seen. */
async function closure(): Promise<{ files: Set<string>; specifiers: string[] }> {
  const files = new Set<string>();
  const specifiers: string[] = [];
  const todo = ["mod.ts"];
  while (todo.length) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = await Deno.readTextFile(new URL(file, DIR));
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      specifiers.push(`${file} → ${spec}`);
      if (spec.startsWith("./") && !spec.slice(2).includes("/")) todo.push(spec.slice(2));
    }
  }
  return { files, specifiers };
}

Deno.test("the SDK imports only sibling files of lifecycle/sdk/ (it is bundled into the worker)", async () => {
  const { specifiers } = await closure();
  assert.ok(specifiers.length > 5, "the import scan found the imports");
  for (const s of specifiers) {
    const spec = s.split(" → ")[1];
    assert.match(spec, /^\.\/[a-z_]+\.ts$/, `${s}: only ./file.ts imports inside lifecycle/`);
  }
});

Deno.test("sources.ts embeds exactly the SDK's files, each as it is on disk", async () => {
  const { files } = await closure();
  assert.deepEqual(Object.keys(SDK_SOURCES).sort(), [...files].sort());
  for (const name of files) {
    assert.equal(SDK_SOURCES[name], await Deno.readTextFile(new URL(name, DIR)), name);
  }
});

Deno.test("importing the SDK touches no Deno API", async () => {
  const probe =
    `Object.defineProperty(globalThis, "Deno", { get() { throw new Error("Deno touched"); } });
const m = await import(${JSON.stringify(new URL("mod.ts", DIR).href)});
console.log(typeof m.LifecycleHooks);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", "--cached-only", "--ext=ts", probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, err);
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "function");
});

Deno.test("the SDK face exports what hook authors and the engine use", () => {
  for (
    const name of [
      "LifecycleHooks",
      "workItemFromRef",
      "toWorkItem",
      "POINTS",
      "POINT_NAMES",
      "handleRequest",
      "serveHooks",
      "DecisionTypeError",
      "applyAnswer",
      "makeContext",
      "contextJsonSchema",
      "pointSchema",
    ]
  ) {
    assert.ok(name in sdk, `mod.ts exports ${name}`);
  }
});
