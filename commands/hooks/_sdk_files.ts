/**
 * Writes the hook-author SDK (`@the-loop/hooks`) out of the binary, so hooks written outside
 * this repository type-check in an editor and remote hook servers built on `serveHooks` run with
 * plain `deno run`: `<dir>/the-loop-hooks/` holds the SDK's files and `<dir>/deno.json` maps
 * `@the-loop/hooks` onto it. The loader never reads these files: it serves its own embedded copy.
 *
 * @module
 */
import { join } from "node:path";
import { SDK_ENTRY, SDK_SOURCES } from "../../lifecycle/mod.ts";
import { writeFileAtomic } from "../../state/atomic.ts";
import { VERSION } from "../../version.ts";
import { exists } from "../../state/files.ts";

/** The folder under the hooks directory that receives the SDK's files. */
export const SDK_DIR_NAME = "the-loop-hooks";

/** What {@linkcode writeSdk} did. */
export interface SdkWritten {
  /** Files written. */
  written: string[];
  /** Files left alone because they exist (without `force`). */
  kept: string[];
}

/**
 * Writes the SDK under `dir` and, when `dir/deno.json` does not exist, an import map for it.
 * The SDK's own files are always refreshed (they are the-loop's, not the user's); an existing
 * `deno.json` is never touched.
 */
export async function writeSdk(dir: string): Promise<SdkWritten> {
  const out: SdkWritten = { written: [], kept: [] };
  const sdkDir = join(dir, SDK_DIR_NAME);
  for (const [name, text] of Object.entries(SDK_SOURCES)) {
    const file = join(sdkDir, name);
    await writeFileAtomic(file, text);
    out.written.push(file);
  }
  const readme = join(sdkDir, "README.md");
  await writeFileAtomic(
    readme,
    `# @the-loop/hooks ${VERSION}\n\nThe-loop's hook-author SDK, written by \`the-loop hooks sdk\`. ` +
      "Do not edit: `the-loop hooks sdk` rewrites it. the-loop itself never reads these files " +
      "(it bundles its own copy into every hook).\n",
  );
  out.written.push(readme);
  const denoJson = join(dir, "deno.json");
  if (await exists(denoJson)) {
    out.kept.push(denoJson);
  } else {
    const imports = { "@the-loop/hooks": `./${SDK_DIR_NAME}/${SDK_ENTRY}` };
    await writeFileAtomic(denoJson, JSON.stringify({ imports }, null, 2) + "\n");
    out.written.push(denoJson);
  }
  return out;
}
