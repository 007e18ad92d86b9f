/**
 * The status page's web terminal: a tmux session's pane in the page, with xterm.js, over a
 * WebSocket fed through tmux's control mode (docs/decisions/0016-xterm-web-terminal.md).
 *
 * ```ts
 * import { TERMINAL_ASSETS, terminalSocket } from "./terminal/mod.ts";
 * // GET /api/v1/items/:ref/terminal (a WebSocket upgrade), when ui.terminal is not `off`:
 * return terminalSocket(req, { ref, tmuxArgs: ["-L", socket], session, mode: "read-only" });
 * ```
 *
 * - {@linkcode terminalSocket} (or {@linkcode createTerminalSocket} with options): the seam;
 * - {@linkcode TERMINAL_ASSETS}: `/assets/terminal.js`, `/assets/xterm.js`, `/assets/xterm.css`,
 *   for the UI server's asset table; the page calls
 *   `window.theLoopTerminal.mount(element, wsUrl, { readOnly })`.
 *
 * @module
 */
export { createTerminalSocket, terminalSocket, type TerminalSocketOptions } from "./socket.ts";
export { TERMINAL_ASSETS } from "./assets.ts";
export type {
  TerminalAsset,
  TerminalClientMessage,
  TerminalMode,
  TerminalSeam,
  TerminalServerMessage,
  TerminalTarget,
} from "./types.ts";
