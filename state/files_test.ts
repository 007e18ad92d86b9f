import assert from "node:assert/strict";
import { exists } from "./files.ts";

Deno.test("exists: files, directories and dangling links exist; a missing path does not", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/f`, "x");
  await Deno.symlink(`${dir}/nowhere`, `${dir}/dangling`);
  assert.equal(await exists(`${dir}/f`), true);
  assert.equal(await exists(dir), true);
  assert.equal(await exists(`${dir}/dangling`), true);
  assert.equal(await exists(`${dir}/missing`), false);
  await Deno.remove(dir, { recursive: true });
});
