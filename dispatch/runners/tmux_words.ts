/**
 * The words of tmux commands the-loop builds, shared by everything that types into a pane: the
 * tmux runner's prompt deliveries and the status page's web terminal (`ui/terminal/`). A word
 * is double-quoted with tmux's escapes ({@linkcode quoteWord}), so no text is ever read as a
 * command, a variable, `~` or a format; a pane is targeted `=<session>:` ({@linkcode paneOf});
 * and a paste goes through {@linkcode guardedPaste}, which pastes only into a running pane.
 *
 * @module
 */

/** The characters a double-quoted tmux word cannot hold as they are. */
// deno-lint-ignore no-control-regex -- control characters are exactly what it looks for
const SPECIAL = /[\\"$~\x00-\x1f\x7f]/g;

function escapeOne(ch: string): string {
  switch (ch) {
    case "~":
      return "\\176"; // a leading `~` is a home directory, even quoted
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    case "\\":
    case '"':
    case "$":
      return `\\${ch}`;
    default:
      return `\\${ch.charCodeAt(0).toString(8).padStart(3, "0")}`;
  }
}

/** `s` as one double-quoted tmux word that tmux reads back as exactly `s`. */
export function quoteWord(s: string): string {
  return `"${s.replace(SPECIAL, escapeOne)}"`;
}

/** The control-mode line of one command: its words, quoted. */
export function controlLine(command: string[]): string {
  return command.map(quoteWord).join(" ");
}

/** The control-mode line of a command sequence: `a ; b ; c` (tmux stops at the first failure). */
export function controlSequence(commands: string[][]): string {
  return commands.map(controlLine).join(" ; ");
}

/**
 * The pane target of a session: `=<name>:`, an exact session name (a bare `loop-x-1` would also
 * match `loop-x-15` by prefix when `loop-x-1` does not exist) and its current window's pane.
 */
export const paneOf = (name: string): string => `=${name}:`;

/** What the guarded paste prints when the pane's process had ended (nothing was pasted). */
export const PANE_DEAD = "the-loop: pane dead, nothing pasted";

/** Options of {@linkcode guardedPaste}. */
export interface GuardedPasteOptions {
  /** Press Enter after the paste (a prompt's submission); default true. */
  enter?: boolean;
}

/**
 * Pastes `buffer` into the session's pane (deleting it, bracketed when the program asked for
 * bracketed paste), then presses Enter unless told not to — only when the pane's process runs,
 * as the tmux server itself sees it at that moment (`if-shell -F` reads `#{pane_dead}` in the
 * server, no shell): tmux 3.3's server crashes on a paste into a dead pane, and a program can
 * die between any earlier check and the paste. A dead pane has the buffer deleted and
 * {@linkcode PANE_DEAD} printed instead. Either branch is two commands (without Enter the live
 * one ends in a `send-keys` of no key), so a control client gets
 * {@linkcode GUARDED_PASTE_ANSWERS} blocks for it unless one fails (no Enter after a paste that
 * failed: it would submit whatever is typed there).
 */
export function guardedPaste(
  name: string,
  buffer: string,
  opts: GuardedPasteOptions = {},
): string[] {
  const target = paneOf(name);
  const enter = opts.enter ?? true;
  return [
    "if-shell",
    "-F",
    "-t",
    target,
    "#{pane_dead}",
    controlSequence([["delete-buffer", "-b", buffer], ["display-message", "-p", PANE_DEAD]]),
    controlSequence([
      ["paste-buffer", "-d", "-p", "-b", buffer, "-t", target],
      ["send-keys", "-t", target, ...(enter ? ["Enter"] : [])],
    ]),
  ];
}

/** The blocks a control client gets for a {@linkcode guardedPaste}: its own, then its branch's two. */
export const GUARDED_PASTE_ANSWERS = 3;

/** Whether a guarded paste's output says the pane was dead. */
export const saidDead = (stdout: string): boolean => stdout.split("\n").includes(PANE_DEAD);
