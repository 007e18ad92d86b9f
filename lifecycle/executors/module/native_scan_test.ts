import assert from "node:assert/strict";
import { scanSpecifiers, type Specifier } from "./_native_scan.ts";

function specifiers(src: string): Specifier[] {
  const scan = scanSpecifiers(src);
  if ("unsure" in scan) assert.fail(`unsure: ${scan.unsure}`);
  for (const s of scan.specifiers) assert.equal(src.slice(s.start + 1, s.end - 1), s.specifier);
  return scan.specifiers;
}

function unsure(src: string): string {
  const scan = scanSpecifiers(src);
  assert.ok("unsure" in scan, `read natively: ${JSON.stringify(scan)}`);
  return scan.unsure;
}

Deno.test("native scan: every import and export-from form, with its place and whether it is type-only", async () => {
  const starter = await Deno.readTextFile(
    new URL("../../../commands/hooks/templates/module.ts.txt", import.meta.url),
  );
  assert.deepEqual(specifiers(starter).map((s) => s.specifier), ["@the-loop/hooks"]);
  const src = [
    `import "./side.ts";`,
    `import a from "./a.ts";`,
    `import b, { c as d, type E } from './b.ts';`,
    `import * as ns from "./ns.ts";`,
    `import type { T } from "./t.ts";`,
    `import type from "./named_type.ts";`,
    `import {\n  from,\n  x,\n} from "./multi.ts"`,
    `export * from "./all.ts";`,
    `export * as all from "./all2.ts";`,
    `export { y, z as w } from "./yz.ts";`,
    `export type { U } from "./u.ts";`,
    `export { local };`,
    `export default class K { import() {} }`.replace("import() {}", "m() {}"),
    `const u = import.meta.url; const half = u.length / 2; const q = a[0] / 3;`,
    'const t = `${ { k: `x${1}` }.k } import("no")`;',
    `// import "./in_comment.ts"`,
    `/* export * from "./in_block.ts" */ const s = "import x from './in_string.ts'";`,
  ].join("\n");
  const found = specifiers(src).map((s) => [s.specifier, s.typeOnly]);
  assert.deepEqual(found, [
    ["./side.ts", false],
    ["./a.ts", false],
    ["./b.ts", false],
    ["./ns.ts", false],
    ["./t.ts", true],
    ["./named_type.ts", false],
    ["./multi.ts", false],
    ["./all.ts", false],
    ["./all2.ts", false],
    ["./yz.ts", false],
    ["./u.ts", true],
  ]);
});

Deno.test("native scan: gives up on whatever a tokenizer without a parser could misread", () => {
  const cases: [string, RegExp][] = [
    // a regular expression after `)` hides a quote that would swallow the import behind it
    [`if (x) /'/.test(s); import evil from "file:///etc/passwd"; ('')`, /regular expression/],
    [`const r = /a/;`, /regular expression/],
    [`return /x/`, /regular expression/],
    // a non-ASCII space makes `typeof\u00a0` one word to a naive reader
    [`typeof\u00a0/'/; import evil from "file:///x"; ('')`, /non-ASCII/],
    [`// hi\u2028import evil from "file:///x"`, /U\+2028/],
    [`\\u0069mport x from "y"`, /backslash/],
    [`#!/usr/bin/env -S deno run\nimport x from "./x.ts"`, /hashbang/],
    [`x = 1 <!-- \`\nimport e from "file:///x"\n// \``, /HTML-like/],
    [`const s = "a\nimport e from 'file:///x'";`, /line break in a string/],
    [`const s = 'unterminated`, /unterminated string/],
    [`/* open`, /unterminated comment/],
    ["const t = `open ${x", /unclosed|unterminated/],
    [`const x = import("./a.ts");`, /import\(\) expression/],
    [`import data from "./d.json" with { type: "json" };`, /attributes/],
    [`import data from "./d.json" assert { type: "json" };`, /attributes/],
    [`import x from "./x.ts"; evil();`, /code after an import/],
    [`import { "a-b" as c } from "./x.ts";`, /holding/],
    [`export { "a-b" as c } from "./x.ts";`, /holding/],
    [`import x = require("./x");`, /holding "="/],
    [`export import X = N.Y;`, /holding "="/],
    [`import x from "./x\\u002ets";`, /escape/],
    [`import x from`, /without from/],
    [`/** @jsxImportSource npm:preact */`, /pragma/],
    [`// @ts-types="npm:@types/x"\nimport x from "./x.js";`, /pragma/],
    [`/// <reference types="npm:x" />`, /pragma/],
    [`const o = { import: 1 };`, /holding ":"/],
    [`}`, /unbalanced/],
  ];
  for (const [src, why] of cases) assert.match(unsure(src), why, src);
});

Deno.test("native scan: the names of an import of braces alone, type ones left out", () => {
  const names = (src: string) => specifiers(src).map((s) => s.names);
  assert.deepEqual(names(`import { A, type B, c as d, type E as F } from "x";`), [["A", "c"]]);
  assert.deepEqual(names(`import {\n  LifecycleHooks,\n} from "@the-loop/hooks";`), [[
    "LifecycleHooks",
  ]]);
  assert.deepEqual(names(`import {} from "x";`), [[]]);
  for (const src of [`import A, { b } from "x";`, `import * as ns from "x";`, `import "x";`]) {
    assert.deepEqual(names(src), [undefined], src);
  }
  assert.deepEqual(names(`import type { A } from "x";`), [undefined]);
  assert.deepEqual(names(`export { a } from "x";`), [undefined]);
});

Deno.test("native scan: a property named import or export is not a declaration", () => {
  assert.deepEqual(specifiers(`obj.import(x); obj?.export; a.import.b;`), []);
  assert.equal(unsure(`x = ...import("./a.ts")`), "an import() expression");
});
