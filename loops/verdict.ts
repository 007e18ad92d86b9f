/**
 * A person's verdict at a gate (a human node): a gate keyword in a comment, one per outcome of
 * the node. `routing.control.gateKeywords` maps an outcome to its keyword
 * ({@linkcode DEFAULT_GATE_KEYWORDS}); an outcome not listed answers to `the-loop:<outcome>`.
 * A keyword matches as control keywords do (`dispatch/keywords.ts`): a whole token, in any case
 * (the character just before and after it is not a word character, `:` or `-`), a space in it
 * matching any run of whitespace, and only in the comment's {@linkcode commandText} — never in
 * a quoted line, a code block, an inline code span or an HTML comment (`<!-- the-loop:approve -->`
 * shows nothing on GitHub, so it resolves no gate). So `not approved` is no approval, and
 * `xthe-loop:approve` or `the-loop:approvex` no verdict. The same keyword twice is one verdict;
 * two different ones are ambiguous (nothing is applied). An empty keyword disables its outcome.
 *
 * ```ts
 * parseVerdict("LGTM, the-loop:approve", { outcomes: ["approve", "request-changes"], keywords });
 * // { outcome: "approve" }
 * ```
 *
 * @module
 */
import { commandText } from "../github/mod.ts";

/** The default gate keywords: `approve` and `request-changes`. */
export const DEFAULT_GATE_KEYWORDS: Readonly<Record<string, string>> = Object.freeze({
  "approve": "the-loop:approve",
  "request-changes": "the-loop:request-changes",
});

/** The keyword of a gate's outcome: the configured one, else `the-loop:<outcome>`. */
export function gateKeyword(outcome: string, keywords: Record<string, string>): string {
  return (Object.hasOwn(keywords, outcome) ? keywords[outcome] : undefined) ??
    `the-loop:${outcome}`;
}

/** What a comment says at a gate. */
export interface Verdict {
  /** The one outcome the comment carries. */
  outcome?: string;
  /** Two or more different outcomes (in the node's order): none is applied. */
  ambiguous?: string[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** The verdict in `text` among `outcomes`, by their keywords. */
export function parseVerdict(
  text: string,
  o: { outcomes: string[]; keywords: Record<string, string> },
): Verdict {
  if (!text) return {};
  const words = o.outcomes
    .map((outcome) => ({ outcome, keyword: gateKeyword(outcome, o.keywords).trim() }))
    .filter((w) => w.keyword !== "");
  if (words.length === 0) return {};
  const alternatives = words.map((w) => `(${w.keyword.split(/\s+/).map(escape).join("\\s+")})`);
  const re = new RegExp(`(?<![\\w:-])(?:${alternatives.join("|")})(?![\\w:-])`, "gi");
  const seen = new Set<string>();
  for (const m of commandText(text).matchAll(re)) {
    const i = m.slice(1).findIndex((g) => g !== undefined);
    if (i >= 0) seen.add(words[i].outcome);
  }
  const found = o.outcomes.filter((x) => seen.has(x));
  if (found.length === 1) return { outcome: found[0] };
  if (found.length > 1) return { ambiguous: found };
  return {};
}
