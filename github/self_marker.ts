/**
 * The self-marker: everything the-loop posts on GitHub ends with a visible attribution line and
 * an HTML comment, so the poller and the router can recognise (and never act on) the-loop's own
 * words, whoever's account posted them. The marker counts only where the-loop writes it: on its
 * own exact line, the body's last, outside quotes and code — a person's comment that
 * quotes it, shows it in a code block or mentions it mid-text is that person's. The marker being an
 * HTML comment itself, its line is read from {@linkcode withoutQuotesAndCode} (the command text
 * before HTML comments are blanked).
 *
 * ```ts
 * markSelfAuthored("Started."); // "Started.\n\n🤖 _the-loop, autonomous comment_\n<!-- the-loop:agent-comment -->\n"
 * isSelfAuthored(markSelfAuthored("x")); // true
 * ```
 *
 * @module
 */

import { withoutQuotesAndCode } from "./command_text.ts";

/** The hidden marker every comment the-loop posts carries. */
export const SELF_MARKER = "<!-- the-loop:agent-comment -->";

/** The visible attribution line above the marker. */
export const ATTRIBUTION = "🤖 _the-loop, autonomous comment_";

/**
 * Does `body` end as the-loop writes it: its last non-blank line exactly the marker (trailing
 * whitespace and `\r\n` aside), and that line not quoted or code?
 */
export function isSelfAuthored(body: string | null | undefined): boolean {
  if (typeof body !== "string" || !body.includes(SELF_MARKER)) return false;
  const lines = body.split(/\r\n|\r|\n/);
  let last = lines.length - 1;
  while (last >= 0 && lines[last].trim() === "") last--;
  if (last < 0 || lines[last].trimEnd() !== SELF_MARKER) return false;
  return withoutQuotesAndCode(body).split("\n")[last].trimEnd() === SELF_MARKER;
}

/**
 * `body` stamped with the attribution line and the marker. Idempotent: a body that already
 * carries the marker is returned unchanged.
 */
export function markSelfAuthored(body: string): string {
  if (isSelfAuthored(body)) return body;
  const text = body.trimEnd();
  return `${text}${text ? "\n\n" : ""}${ATTRIBUTION}\n${SELF_MARKER}\n`;
}
