/**
 * Keeps the catalog section of `docs/events.md` generated from `catalog.ts`:
 * `deno run --allow-read --allow-write --allow-run events/render_docs.ts` rewrites it, and a
 * test fails when the committed file differs. Only the text between the two markers is
 * generated; the rest of the page is written by hand.
 *
 * @module
 */
import { catalogMarkdown } from "./format.ts";
import { formatMarkdown } from "../tools/fmt_markdown.ts";

/** Where the generated catalog starts and ends in `docs/events.md`. */
export const MARKERS = ["<!-- catalog:start -->", "<!-- catalog:end -->"] as const;

/** The path of `docs/events.md`. */
export const DOCS_PATH = new URL("../docs/events.md", import.meta.url).pathname;

/** `page` with the text between the markers replaced by the catalog, formatted by `deno fmt`. */
export async function renderEventsDocs(page: string): Promise<string> {
  const [start, end] = [page.indexOf(MARKERS[0]), page.indexOf(MARKERS[1])];
  if (start < 0 || end < start) {
    throw new Error(`docs/events.md lacks the ${MARKERS.join(" … ")} markers`);
  }
  const text = page.slice(0, start + MARKERS[0].length) + "\n\n" + catalogMarkdown() + "\n" +
    page.slice(end);
  return await formatMarkdown(text);
}

if (import.meta.main) {
  await Deno.writeTextFile(DOCS_PATH, await renderEventsDocs(await Deno.readTextFile(DOCS_PATH)));
}
