/**
 * {@linkcode TERMINAL_ASSETS}: what the web terminal adds to the status page's assets, embedded
 * in the binary as text imports (no CDN, no file beside the executable): xterm.js and its fit
 * addon (`@xterm/xterm`, `@xterm/addon-fit`, MIT, from npm through deno.json's imports) as
 * `/assets/xterm.js`, xterm's stylesheet as `/assets/xterm.css`, and `terminal.js`
 * (`window.theLoopTerminal`) as `/assets/terminal.js`. The packages are imported by their npm
 * specifiers (resolved through the import map, embedded by `deno compile` with the rest of the
 * npm graph), not by a path into `node_modules/`, whose layout is the installer's. Their
 * `sourceMappingURL` comments are cut (the maps are not served) and each package's MIT license
 * heads its code, as the license asks of a copy.
 *
 * @module
 */
import xtermJs from "@xterm/xterm/lib/xterm.js" with { type: "text" };
import xtermCss from "@xterm/xterm/css/xterm.css" with { type: "text" };
import xtermLicense from "@xterm/xterm/LICENSE" with { type: "text" };
import fitJs from "@xterm/addon-fit/lib/addon-fit.js" with { type: "text" };
import fitLicense from "@xterm/addon-fit/LICENSE" with { type: "text" };
import terminalJs from "./terminal.js" with { type: "text" };
import type { TerminalAsset } from "./types.ts";

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** `text` without its `//# sourceMappingURL=…` lines. */
export function withoutSourceMap(text: string): string {
  return text.replace(/^\/\/# sourceMappingURL=.*$/gm, "").trimEnd() + "\n";
}

/** A package's license as a comment to put before its code. */
export function licenseComment(name: string, license: string): string {
  return `/*! ${name}\n${license.replaceAll("*/", "* /").trim()}\n*/\n`;
}

/** The web terminal's files, by the path the UI server serves each at. */
export const TERMINAL_ASSETS: Readonly<Record<string, TerminalAsset>> = {
  "/assets/xterm.js": {
    type: JS,
    body: licenseComment("@xterm/xterm", xtermLicense) + withoutSourceMap(xtermJs) +
      licenseComment("@xterm/addon-fit", fitLicense) + withoutSourceMap(fitJs),
  },
  "/assets/xterm.css": { type: CSS, body: licenseComment("@xterm/xterm", xtermLicense) + xtermCss },
  "/assets/terminal.js": { type: JS, body: terminalJs },
};
