import assert from "node:assert/strict";
import { renderCliDocs } from "./render_docs.ts";

Deno.test("docs/cli.md is the program's own help (regenerate with `deno task docs`)", async () => {
  const committed = await Deno.readTextFile(new URL("../docs/cli.md", import.meta.url));
  const tmp = await Deno.makeTempFile({ suffix: ".md" });
  await Deno.writeTextFile(tmp, renderCliDocs());
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", "--line-width=100", tmp] })
    .output();
  const generated = await Deno.readTextFile(tmp);
  await Deno.remove(tmp);
  assert.equal(committed, generated, "docs/cli.md is stale: run `deno task docs`");
});
