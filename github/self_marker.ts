/**
 * The self-marker: everything the-loop posts on GitHub ends with a visible attribution line and
 * an HTML comment, so the poller and the router can recognise (and never act on) the-loop's own
 * words, whoever's account posted them.
 *
 * ```ts
 * markSelfAuthored("Started."); // "Started.\n\n🤖 _the-loop, autonomous comment_\n<!-- the-loop:agent-comment -->\n"
 * isSelfAuthored(markSelfAuthored("x")); // true
 * ```
 *
 * @module
 */

/** The hidden marker every comment the-loop posts carries. */
export const SELF_MARKER = "<!-- the-loop:agent-comment -->";

/** The visible attribution line above the marker. */
export const ATTRIBUTION = "🤖 _the-loop, autonomous comment_";

/** Does `body` carry the self-marker? */
export function isSelfAuthored(body: string | null | undefined): boolean {
  return typeof body === "string" && body.includes(SELF_MARKER);
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
