/**
 * {@linkcode terminalSocket}, the web terminal's {@linkcode TerminalSeam}: a WebSocket upgrade
 * in, a terminal on the target's tmux session out (`_session.ts`). A request that is no upgrade
 * is answered 400; one whose `Origin` is another site's is answered 403, before anything
 * attaches — a page elsewhere could otherwise open the socket in the person's browser and, in
 * interactive mode, type into the agent's terminal (browsers send `Origin` on every WebSocket
 * request; a client that sends none, like a script, is the UI server's token's business).
 *
 * @module
 */
import { serveTerminal } from "./_session.ts";
import type { TerminalSeam, TerminalTarget } from "./types.ts";

/** Options of {@linkcode createTerminalSocket}. */
export interface TerminalSocketOptions {
  /**
   * The tmux client's whole environment, read at each connection; default `PATH` and
   * `TMUX_TMPDIR` of the daemon's (no secret of the daemon's reaches tmux; `TMUX` is left out,
   * so a daemon started inside tmux still reaches the server `tmuxArgs` names).
   */
  env?: () => Record<string, string>;
  /** The longest input message taken, in characters; default 32 768. */
  maxInputChars?: number;
  /** Problems no one's input caused (tmux refused a command); default stderr. */
  warn?: (message: string) => void;
}

function daemonEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "TMUX_TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Whether the request comes from a page of the server's own origin (or from no page at all). */
export function sameOrigin(req: Request): boolean {
  const origin = req.headers.get("origin");
  if (origin === null) return true;
  const host = req.headers.get("host") ?? new URL(req.url).host;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

const text = (status: number, body: string) =>
  new Response(`${body}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

/** A {@linkcode TerminalSeam} with these options. */
export function createTerminalSocket(opts: TerminalSocketOptions = {}): TerminalSeam {
  const warn = opts.warn ?? ((m: string) => console.error(`warning: ${m}`));
  return (req: Request, target: TerminalTarget): Response => {
    if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return text(400, `the terminal of ${target.ref} is a WebSocket: connect with one`);
    }
    if (!sameOrigin(req)) {
      return text(403, "the terminal opens only from the status page's own origin");
    }
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    serveTerminal(socket, target, {
      env: (opts.env ?? daemonEnv)(),
      maxInputChars: opts.maxInputChars ?? 32_768,
      warn,
    });
    return response;
  };
}

/** The web terminal with the default options. */
export const terminalSocket: TerminalSeam = createTerminalSocket();
