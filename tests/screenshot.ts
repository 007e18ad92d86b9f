/**
 * `deno task screenshot URL OUT.png [--wait-for SELECTOR] [--width N] [--height N]`: a picture of
 * a running page through the browser tests' rig (`tests/_browser.ts`: Debian's headless
 * Chromium), for the README. With `deno task demo` running, e.g.
 * `deno task screenshot http://127.0.0.1:PORT/ docs/ui.png --wait-for "#items tr"`. It waits for
 * the selector (with a deadline), then writes the whole page as a PNG; relative paths are taken
 * from the repository root.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { screenshotIfAsked, withPage } from "./_browser.ts";

const USAGE =
  "usage: deno task screenshot URL OUT.png [--wait-for SELECTOR] [--width N] [--height N]";

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      "wait-for": { type: "string" },
      width: { type: "string", default: "1280" },
      height: { type: "string", default: "800" },
    },
  });
  const [url, out] = positionals;
  const width = Number(values.width);
  const height = Number(values.height);
  if (!url || !out || positionals.length > 2 || !(width > 0) || !(height > 0)) {
    console.error(USAGE);
    Deno.exit(2);
  }
  const written = await withPage(url, async (page) => {
    if (values["wait-for"]) await page.waitFor(values["wait-for"], { timeoutMs: 30_000 });
    const path = await screenshotIfAsked(page, out);
    if (page.consoleErrors.length > 0) {
      console.error(`the page logged errors:\n${page.consoleErrors.join("\n")}`);
    }
    return path;
  }, { viewport: { width, height } });
  console.log(written);
}
