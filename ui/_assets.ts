/**
 * The page's embedded files (`ui/page/`, imported as text so `deno compile` carries them; never
 * read beside the executable): the document, its script and its style, and empty stand-ins for
 * the web terminal's files (`/assets/terminal.js`, `/assets/xterm.js`, `/assets/xterm.css`),
 * which the terminal's own assets replace when it is wired in (`UiOptions.assets`).
 *
 * @module
 */
import page from "./page/index.html" with { type: "text" };
import script from "./page/app.js" with { type: "text" };
import style from "./page/app.css" with { type: "text" };
import type { Asset } from "./types.ts";

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** The built-in assets, by path. */
export const PAGE_ASSETS: Readonly<Record<string, Asset>> = {
  "/assets/app.js": { type: JS, body: script },
  "/assets/app.css": { type: CSS, body: style },
  "/assets/terminal.js": { type: JS, body: "// no web terminal in this build\n" },
  "/assets/xterm.js": { type: JS, body: "// no web terminal in this build\n" },
  "/assets/xterm.css": { type: CSS, body: "/* no web terminal in this build */\n" },
};

/** The document with its CSRF token (hex, so nothing to escape). */
export function pageWith(o: { csrf: string }): string {
  if (!/^[0-9a-f]+$/.test(o.csrf)) throw new RangeError("the CSRF token must be hex");
  return page.replace("{{CSRF}}", o.csrf);
}

/** The page's size in bytes: the document, its script and its style. */
export function pageBytes(): number {
  const enc = new TextEncoder();
  return enc.encode(page).length + enc.encode(script).length + enc.encode(style).length;
}
