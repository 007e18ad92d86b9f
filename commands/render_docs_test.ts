import assert from "node:assert/strict";
import { formatMarkdown } from "../tools/fmt_markdown.ts";
import { renderCliDocs } from "./render_docs.ts";

Deno.test("docs/cli.md is the program's own help (regenerate with `deno task docs`)", async () => {
  const committed = await Deno.readTextFile(new URL("../docs/cli.md", import.meta.url));
  const generated = await formatMarkdown(renderCliDocs());
  assert.equal(committed, generated, "docs/cli.md is stale: run `deno task docs`");
});
