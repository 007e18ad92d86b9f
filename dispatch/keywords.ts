/**
 * Control keywords in a comment: `routing.control.keywords` name one keyword per
 * command (`the-loop:start-execution` by default). A keyword matches as a whole token, in any
 * case: the character just before and just after it must not be a word character, `:` or `-`, so
 * `**the-loop:start-execution**` and `(THE-LOOP:START-EXECUTION)` match while
 * `xthe-loop:start-execution` and `the-loop:start-execution:now` do not. A space inside a keyword
 * matches any run of whitespace. The same keyword twice is one command; two different ones are
 * ambiguous (nothing is executed). An empty keyword disables its command, and
 * `control.enabled: false` recognises nothing. Only comment and review text is read — never an
 * issue body — and only its {@linkcode commandText}: a keyword in a quoted line (`> …`), a fenced
 * or indented code block, an inline code span or an HTML comment is not recognised.
 *
 * ```ts
 * parseControl("Please the-loop:start-execution.", control); // { command: "start" }
 * parseControl("the-loop:start-execution loop=pdlc", control); // { command: "start", loop: "pdlc" }
 * parseControl("the-loop:start-execution, no, the-loop:stop-execution", control);
 * // { ambiguous: ["start", "stop"] }
 * ```
 *
 * @module
 */
import type { RoutingConfig } from "../config/mod.ts";
import { commandText } from "../github/mod.ts";
import type { ControlCommand } from "../state/control.ts";

/** What a text asks of execution control. */
export interface ParsedControl {
  /** The one command the text carries. */
  command?: ControlCommand;
  /**
   * `start` only: the loop named right after the keyword (`the-loop:start-execution loop=pdlc`),
   * a whole token; absent when none is named.
   */
  loop?: string;
  /** Two or more different commands: none is executed. */
  ambiguous?: ControlCommand[];
}

const ORDER: readonly ControlCommand[] = ["start", "stop", "pause", "resume"];

/** `loop=NAME` right after a start keyword (blanks between), NAME a whole token. */
const LOOP_AFTER = /^[ \t]+loop=([A-Za-z0-9][\w.-]*)(?![\w:=-])/;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** One compiled pattern per set of keywords (they change only on a config reload). */
const patterns = new Map<string, { re: RegExp; commands: ControlCommand[] }>();

/** One regular expression for every enabled keyword, each in its own capture group. */
function pattern(control: RoutingConfig["control"]): { re: RegExp; commands: ControlCommand[] } {
  const enabled = ORDER.filter((c) => (control.keywords[c] ?? "").trim() !== "");
  const key = enabled.map((c) => `${c}=${control.keywords[c]}`).join("\n");
  let found = patterns.get(key);
  if (found) return found;
  const alternatives = enabled.map((c) =>
    `(${control.keywords[c].trim().split(/\s+/).map(escape).join("\\s+")})`
  );
  found = {
    re: new RegExp(`(?<![\\w:-])(?:${alternatives.join("|")})(?![\\w:-])`, "gi"),
    commands: enabled,
  };
  if (patterns.size >= 64) patterns.clear();
  patterns.set(key, found);
  return found;
}

/**
 * The control command (or the ambiguity) in `text`: one scan of its command text (without quotes
 * and code) for every keyword; a start keyword followed by `loop=NAME` names the loop.
 */
export function parseControl(text: string, control: RoutingConfig["control"]): ParsedControl {
  if (!control.enabled || !text) return {};
  const { re, commands } = pattern(control);
  if (commands.length === 0) return {};
  const seen = new Set<ControlCommand>();
  const plain = commandText(text);
  let loop: string | undefined;
  for (const m of plain.matchAll(re)) {
    const i = m.slice(1).findIndex((g) => g !== undefined);
    if (i < 0) continue;
    seen.add(commands[i]);
    if (commands[i] === "start" && loop === undefined) {
      loop = LOOP_AFTER.exec(plain.slice(m.index + m[0].length))?.[1];
    }
  }
  const found = ORDER.filter((c) => seen.has(c));
  if (found.length === 1) {
    return found[0] === "start" && loop ? { command: "start", loop } : { command: found[0] };
  }
  if (found.length > 1) return { ambiguous: found };
  return {};
}
