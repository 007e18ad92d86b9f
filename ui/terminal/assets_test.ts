import assert from "node:assert/strict";
import { TERMINAL_ASSETS } from "./mod.ts";

Deno.test("terminal assets: xterm.js with its fit addon, its stylesheet and terminal.js, embedded", () => {
  assert.deepEqual(Object.keys(TERMINAL_ASSETS).sort(), [
    "/assets/terminal.js",
    "/assets/xterm.css",
    "/assets/xterm.js",
  ]);
  const js = TERMINAL_ASSETS["/assets/xterm.js"];
  assert.match(js.type, /^text\/javascript/);
  assert.ok(js.body.includes("e.Terminal=") && js.body.includes("FitAddon"), "xterm and fit");
  assert.ok(js.body.length > 100_000);
  assert.ok(js.body.startsWith("/*! @xterm/xterm\nCopyright"), "the MIT license heads the copy");
  assert.ok(js.body.includes("/*! @xterm/addon-fit\nCopyright"));
  assert.doesNotMatch(js.body, /sourceMappingURL/, "no map is served: none may be asked for");
  assert.match(TERMINAL_ASSETS["/assets/xterm.css"].type, /^text\/css/);
  assert.ok(TERMINAL_ASSETS["/assets/xterm.css"].body.includes(".xterm"));
  const mine = TERMINAL_ASSETS["/assets/terminal.js"].body;
  assert.ok(mine.includes("globalThis.theLoopTerminal = { mount }"));
  assert.doesNotMatch(mine, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
});

Deno.test("terminal assets: terminal.js defines window.theLoopTerminal.mount when run", () => {
  // run the script against stand-ins of the only globals it touches at load time
  const scope: Record<string, unknown> = {};
  const run = new Function(
    "globalThis",
    "document",
    "location",
    TERMINAL_ASSETS["/assets/terminal.js"].body,
  );
  run(scope, { currentScript: { src: "http://127.0.0.1:1/assets/terminal.js" } }, {
    href: "http://127.0.0.1:1/",
  });
  const api = scope.theLoopTerminal as { mount: unknown };
  assert.equal(typeof api.mount, "function");
});
