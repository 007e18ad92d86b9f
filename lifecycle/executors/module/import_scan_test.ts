import assert from "node:assert/strict";
import { computedImports } from "./_import_scan.ts";

Deno.test("computedImports: literal imports pass, computed ones are found where they are", () => {
  const cases: [string, [number, number][]][] = [
    [`import("./a.ts")`, []],
    [`import('./a.json', { with: { type: "json" } })`, []],
    ["import(`./a.ts`)", []],
    [`import /* c */ ( /* d */ "./x.ts" /* e */ )`, []],
    [`type T = typeof import("./x.ts"); import.meta.url; import x from "./y.ts";`, []],
    [`a.import(x); b?.import(y)`, []],
    [`// import(x)\n/* import(y) */ const s = "import(z)" + 'import(w)';`, []],
    ["const t = `import(${'x'})`;", []],
    [`import(x)`, [[1, 0]]],
    ["import(`./${x}.ts`)", [[1, 0]]],
    [`import("./a" + x)`, [[1, 0]]],
    [`const r = /import\\(x'/;\n  import(y)`, [[2, 2]]],
    [`const d = a / b; const e = c / import(y)`, [[1, 31]]],
    ["`${`${import(q)}`}`", [[1, 6]]],
    ["if (a) { b(`${c}`) } import(n)", [[1, 21]]],
    [`export const f = () =>\n  import(\n    name,\n  );`, [[2, 2]]],
  ];
  for (const [src, want] of cases) {
    const got = computedImports(src).map((s) => [s.line, s.column]);
    assert.deepEqual(got, want, src);
  }
});

Deno.test("computedImports: the SDK and the worker runtime have none", async () => {
  for (
    const file of [
      "../../sdk/hooks.ts",
      "../../sdk/mod.ts",
      "./_runtime.ts",
      "./_runtime_guards.ts",
    ]
  ) {
    const src = await Deno.readTextFile(new URL(file, import.meta.url));
    assert.deepEqual(computedImports(src), [], file);
  }
});
