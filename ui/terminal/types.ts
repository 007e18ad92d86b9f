/**
 * The web terminal's seam and its wire protocol. The UI server routes
 * `GET /api/v1/items/:ref/terminal` (a WebSocket upgrade) to a {@linkcode TerminalSeam} with the
 * item's {@linkcode TerminalTarget}; over the socket the server sends
 * {@linkcode TerminalServerMessage}s as text frames (JSON) and what the pane prints as binary
 * frames (its bytes, as tmux read them from the program), and the page sends
 * {@linkcode TerminalClientMessage}s as text frames (JSON).
 *
 * @module
 */

/** `ui.terminal` but `off`: a view of the pane, or a view that also types into it. */
export type TerminalMode = "read-only" | "interactive";

/** The tmux session a web terminal shows. */
export interface TerminalTarget {
  /** The work item (`github:octo/demo#1`), for messages. */
  ref: string;
  /** The `tmux` options that name the server: `["-L", socket]`, `["-S", path]`, or `[]`. */
  tmuxArgs: string[];
  /** The tmux session: `loop-github-octo-demo-1`. */
  session: string;
  mode: TerminalMode;
}

/** Answers a WebSocket upgrade request with a terminal on `target` (or an HTTP error). */
export type TerminalSeam = (req: Request, target: TerminalTarget) => Response | Promise<Response>;

/** One embedded file the UI server serves: its `Content-Type` and its text. */
export interface TerminalAsset {
  type: string;
  body: string;
}

/** What the server sends as text frames (JSON). */
export type TerminalServerMessage =
  /**
   * First, once attached: the pane's size and what it shows now (`screen`: escape sequences that
   * paint it on a terminal of that size, cursor included); binary frames follow.
   */
  | { type: "hello"; mode: TerminalMode; cols: number; rows: number; screen: string }
  /** The pane was resized (by the page, in interactive mode, or by anyone else). */
  | { type: "size"; cols: number; rows: number }
  /** The answer to a `ping`. */
  | { type: "pong"; id?: string | number }
  /** Something the person should know that does not end the terminal (input too long). */
  | { type: "notice"; text: string }
  /** Last, before the socket closes: why (the session ended, tmux could not attach). */
  | { type: "exit"; reason: string };

/** What the page sends as text frames (JSON); anything else is ignored. */
export type TerminalClientMessage =
  /** What xterm.js's `onData` gave: text and key sequences (interactive mode only). */
  | { type: "input"; data: string }
  /** The page's terminal size (interactive mode only: a read-only view never resizes the pane). */
  | { type: "resize"; cols: number; rows: number }
  | { type: "ping"; id?: string | number };
