import assert from "node:assert/strict";
import { DOCS_PATH, renderConfigDocs } from "./render_docs.ts";
import { formatMarkdown } from "../tools/fmt_markdown.ts";
import { CONFIG_SCHEMA } from "./mod.ts";
import type { SchemaNode } from "./describe.ts";

Deno.test("docs/config.md is exactly what the schema generates (run `deno task docs`)", async () => {
  const committed = await Deno.readTextFile(DOCS_PATH);
  const generated = await formatMarkdown(renderConfigDocs());
  assert.ok(committed === generated, "docs/config.md is stale: run `deno task docs`");
});

Deno.test("the generated reference has a row for every key of the schema", () => {
  const text = renderConfigDocs();
  const walk = (s: SchemaNode): void => {
    for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, SchemaNode>)) {
      assert.ok(text.includes(`| \`${k}\` |`), `no row for ${k}`);
      if (sub.description) assert.ok(text.includes(sub.description.replaceAll("|", "\\|")), k);
      walk(sub);
    }
    if (s.items) walk(s.items);
  };
  walk(CONFIG_SCHEMA);
});
