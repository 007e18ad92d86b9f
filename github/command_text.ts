/**
 * Where text counts as a command: a comment's Markdown without what GitHub shows as quoted or as
 * code. Control keywords (and the self-marker's line) are read from {@linkcode commandText}, so
 * a keyword quoted in a reply or shown in an example never acts.
 *
 * Removed, following CommonMark (GitHub's Markdown) for the cases comments use:
 * - quoted lines (`> …`, nested, inside list items) and their lazy continuation lines (a line
 *   right after a quoted paragraph line that GitHub renders inside the quote);
 * - fenced code blocks (```` ``` ```` or `~~~`, three or more, with or without an info string,
 *   closed by a fence of the same character at least as long; an unclosed fence runs to the end
 *   of its list item or of the text), also inside list items;
 * - indented code blocks (4 columns, tabs to the next multiple of 4, beyond the list item's
 *   content), never a paragraph's continuation line;
 * - inline code spans: a run of N backticks up to the next run of exactly N, within a paragraph
 *   (an unmatched run is literal text; `` \` `` is not a run).
 *
 * Not modelled: HTML blocks (`<pre>`, `<code>`) and link reference definitions. What is removed
 * becomes blank (a code span: spaces), so the text keeps its lines and no two words are glued
 * into one.
 *
 * ```ts
 * commandText("> the-loop:start-execution\n\nok"); // "\n\nok"
 * commandText("run `the-loop:stop-execution` to stop"); // "run   to stop"
 * ```
 *
 * @module
 */

/** An open fenced code block: its character, its length, the list depth it opened at. */
interface Fence {
  char: string;
  len: number;
  depth: number;
}

const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;
const LIST_MARKER = /^([-+*]|\d{1,9}[.)])( *)(.*)$/;
const THEMATIC_BREAK = /^([-*_])(?: *\1){2,} *$/;
const HEADING = /^#{1,6}(?:[ \t]|$)/;

/** Leading whitespace in columns (tabs to the next multiple of 4) and the rest. */
function indentOf(line: string): { cols: number; rest: string } {
  let cols = 0;
  let i = 0;
  for (; i < line.length; i++) {
    if (line[i] === " ") cols++;
    else if (line[i] === "\t") cols += 4 - (cols % 4);
    else break;
  }
  return { cols, rest: line.slice(i) };
}

/** Whether `rest` (a line's content past its indentation, ≤ 3 columns) starts a block. */
function startsBlock(rest: string): boolean {
  return rest.startsWith(">") || FENCE_OPEN.test(rest) || HEADING.test(rest) ||
    THEMATIC_BREAK.test(rest) || /^([-+*]|\d{1,9}[.)])( |\t|$)/.test(rest);
}

/** The line-level pass: quotes and code blocks become blank lines. */
function stripBlocks(lines: string[]): string[] {
  const out: string[] = [];
  const lists: number[] = []; // content columns of the open list items, innermost last
  let fence: Fence | undefined;
  let paragraph = false; // the previous line continues a paragraph (no indented code then)
  let quoteLazy = false; // the previous line was a quoted paragraph line
  for (const line of lines) {
    const { cols, rest } = indentOf(line);
    if (rest.trim() === "") {
      out.push(fence ? "" : line);
      paragraph = false;
      quoteLazy = false;
      continue;
    }
    // a line indented less than a list item's content ends that item (and a fence in it),
    // unless it is a lazy continuation of the item's paragraph
    while (lists.length > 0 && cols < lists[lists.length - 1]) {
      if (!fence && paragraph && !startsBlock(rest)) break;
      lists.pop();
      if (fence && fence.depth > lists.length) fence = undefined;
    }
    if (fence) {
      const base = lists.length > 0 ? lists[lists.length - 1] : 0;
      const close = cols - base <= 3 && rest.trimEnd();
      if (close && close.length >= fence.len && [...close].every((c) => c === fence!.char)) {
        fence = undefined;
      }
      out.push("");
      continue;
    }
    out.push(readLine(cols, rest) ? line : "");
  }
  return out;

  /** One line outside a fence: whether it is kept. Opens list items, fences and quotes. */
  function readLine(cols: number, rest: string): boolean {
    for (;;) {
      const base = lists.length > 0 ? lists[lists.length - 1] : 0;
      if (cols - base >= 4) {
        // a paragraph's continuation whatever its indentation, else indented code
        if (quoteLazy) return false;
        return paragraph;
      }
      if (rest.startsWith(">")) {
        const inner = rest.replace(/^(?:[ \t]*>[ \t]?)+/, "");
        quoteLazy = inner.trim() !== "" && !FENCE_OPEN.test(inner.trimStart());
        paragraph = false;
        return false;
      }
      if (quoteLazy && !startsBlock(rest)) return false; // the quote's lazy continuation
      quoteLazy = false;
      const open = FENCE_OPEN.exec(rest);
      if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
        fence = { char: open[1][0], len: open[1].length, depth: lists.length };
        paragraph = false;
        return false;
      }
      if (THEMATIC_BREAK.test(rest) || HEADING.test(rest)) {
        paragraph = false;
        return true;
      }
      const item = LIST_MARKER.exec(rest);
      if (item && (item[2] !== "" || item[3] === "")) {
        // content starts 1–4 columns past the marker; 5 or more: 1 column, the rest is code
        const spaces = item[3] === "" || item[2].length > 4 ? 1 : item[2].length;
        const markerCols = cols + item[1].length;
        lists.push(markerCols + spaces);
        cols = markerCols + item[2].length;
        rest = item[3];
        paragraph = false;
        if (rest === "") return true;
        continue;
      }
      paragraph = true;
      return true;
    }
  }
}

/** Inline code spans of one paragraph (no blank line inside) become spaces. */
function stripSpans(text: string): string {
  if (!text.includes("`")) return text;
  // the backtick runs, with escaped backticks (`\``) left out
  const runs: { start: number; len: number }[] = [];
  for (const m of text.matchAll(/`+/g)) {
    let start = m.index!;
    let len = m[0].length;
    let slashes = 0;
    for (let i = start - 1; i >= 0 && text[i] === "\\"; i--) slashes++;
    if (slashes % 2 === 1) {
      start++;
      len--;
    }
    if (len > 0) runs.push({ start, len });
  }
  // for each length, the runs of that length in order: the next closer is found in linear time
  const byLen = new Map<number, number[]>();
  runs.forEach((r, i) => {
    const same = byLen.get(r.len);
    if (same) same.push(i);
    else byLen.set(r.len, [i]);
  });
  const cursor = new Map<number, number>();
  let out = "";
  let at = 0;
  for (let i = 0; i < runs.length; i++) {
    const { start, len } = runs[i];
    if (start < at) continue;
    const same = byLen.get(len)!;
    let c = cursor.get(len) ?? 0;
    while (c < same.length && same[c] <= i) c++;
    cursor.set(len, c);
    if (c === same.length) continue; // no closer: literal backticks
    const close = runs[same[c]];
    const end = close.start + close.len;
    out += text.slice(at, start) + text.slice(start, end).replace(/[^\n]/g, " ");
    at = end;
    i = same[c];
  }
  return out + text.slice(at);
}

/**
 * `markdown` without its quoted lines, code blocks and inline code: the text a command may be
 * read from. Line breaks (`\r\n`, `\r`) become `\n`; the result has as many lines as the input.
 */
export function commandText(markdown: string): string {
  // one comment is read for control keywords and then for a gate's verdict: the last answer is
  // kept, so the second read costs a comparison
  if (markdown === last.markdown) return last.text;
  const text = computeCommandText(markdown);
  last.markdown = markdown;
  last.text = text;
  return text;
}

/** The last text {@linkcode commandText} was asked for, and its answer. */
const last = { markdown: "", text: "" };

function computeCommandText(markdown: string): string {
  const lines = stripBlocks(markdown.split(/\r\n|\r|\n/));
  // code spans do not cross a blank line (a paragraph's end)
  const out: string[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length > 0) out.push(stripSpans(para.join("\n")));
    para = [];
  };
  for (const line of lines) {
    if (line.trim() === "") {
      flush();
      out.push(line);
    } else para.push(line);
  }
  flush();
  return out.join("\n");
}
