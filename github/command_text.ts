/**
 * Where text counts as a command: a comment's Markdown without what GitHub shows as quoted or as
 * code, or does not show at all (an HTML comment). Control keywords and gate verdicts are read
 * from {@linkcode commandText}, so a keyword quoted in a reply, shown in an example or hidden in
 * `<!-- … -->` never acts. The self-marker's line, itself an HTML comment, is read from
 * {@linkcode withoutQuotesAndCode}: the same parser without the HTML comment rule.
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
 *   (an unmatched run is literal text; `` \` `` is not a run);
 * - HTML comments (`commandText` only), outside code: a `<!--` where a block may start (≤ 3
 *   columns into the line or its list item; an HTML block) hides everything up to the next
 *   `-->`, across lines and blank lines, or to the end of the text when none follows (GitHub
 *   shows nothing after an unclosed comment); a `<!--` inside a paragraph hides up to the next
 *   `-->` in that paragraph, and with none there it is literal text, as GitHub shows it. Within
 *   a paragraph the construct that opens first wins: `` `<!--` `` is code, and a backtick inside
 *   a comment opens no code span. `<!-->` and `<!--->` are whole (empty) comments. A quoted
 *   line or a line of raw HTML (`<div>…`) whose `<!--` is not closed hides the rest too (its
 *   HTML is passed through, and an unclosed comment runs to the end of what GitHub shows).
 *
 * Not modelled: other HTML blocks (`<pre>`, `<code>`) and link reference definitions. What is
 * removed becomes blank (a code span or an HTML comment: spaces), so the text keeps its lines and
 * no two words are glued into one.
 *
 * ```ts
 * commandText("> the-loop:start-execution\n\nok"); // "\n\nok"
 * commandText("run `the-loop:stop-execution` to stop"); // "run   to stop"
 * commandText("<!-- the-loop:approve --> ok"); // " ".repeat(26) + "ok"
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
/** A line that starts with an HTML tag (an HTML block, or raw HTML GitHub passes through). */
const RAW_HTML_START = /^<\/?[a-zA-Z]/;

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

/**
 * Whether `rest` (a line's content past its indentation, ≤ 3 columns) starts a block (with
 * `comments`, an HTML comment's `<!--` does too).
 */
function startsBlock(rest: string, comments: boolean): boolean {
  return rest.startsWith(">") || FENCE_OPEN.test(rest) || HEADING.test(rest) ||
    THEMATIC_BREAK.test(rest) || /^([-+*]|\d{1,9}[.)])( |\t|$)/.test(rest) ||
    (comments && rest.startsWith("<!--"));
}

/** `text` with every character but a line break turned into a space. */
const blank = (text: string) => text.replace(/[^\n]/g, " ");

/**
 * `line` read as raw HTML from `from` on, with an HTML comment open there (`opener`: `from` is
 * at its `<!--`; else the comment began on an earlier line): its comments blanked, and whether
 * one is still open at the line's end.
 */
function blankRawComments(
  line: string,
  o: { from: number; opener: boolean },
): { line: string; open: boolean } {
  let out = line.slice(0, o.from);
  let start = o.from;
  let opener = o.opener;
  for (;;) {
    // from just past `<!`: `<!-->` and `<!--->` close themselves, as HTML reads them
    const close = line.indexOf("-->", opener ? start + 2 : start);
    if (close < 0) return { line: out + blank(line.slice(start)), open: true };
    out += blank(line.slice(start, close + 3));
    const next = line.indexOf("<!--", close + 3);
    if (next < 0) return { line: out + line.slice(close + 3), open: false };
    out += line.slice(close + 3, next);
    start = next;
    opener = true;
  }
}

/**
 * The line-level pass: quotes and code blocks become blank lines; with `comments`, an HTML
 * comment opening a block becomes spaces up to its `-->` or the end of the text.
 */
function stripBlocks(lines: string[], comments: boolean): string[] {
  const out: string[] = [];
  const lists: number[] = []; // content columns of the open list items, innermost last
  let fence: Fence | undefined;
  let html = false; // inside an HTML comment that opened a block: raw HTML up to its `-->`
  let paragraph = false; // the previous line continues a paragraph (no indented code then)
  let quoteLazy = false; // the previous line was a quoted paragraph line
  for (const line of lines) {
    if (html) {
      // no Markdown inside: the comment ends at the next `-->`, whatever the containers
      const read = blankRawComments(line, { from: 0, opener: false });
      html = read.open;
      out.push(read.line);
      paragraph = false;
      quoteLazy = false;
      continue;
    }
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
      if (!fence && paragraph && !startsBlock(rest, comments)) break;
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
    out.push(readLine(line, cols, rest));
  }
  return out;

  /**
   * One line outside a fence and an HTML comment block: what is kept of it (`""`: nothing).
   * Opens list items, fences, quotes and HTML comment blocks.
   */
  function readLine(line: string, cols: number, rest: string): string {
    for (;;) {
      const base = lists.length > 0 ? lists[lists.length - 1] : 0;
      if (cols - base >= 4) {
        // a paragraph's continuation whatever its indentation, else indented code
        if (quoteLazy) return "";
        return paragraph ? line : "";
      }
      if (rest.startsWith(">")) {
        const inner = rest.replace(/^(?:[ \t]*>[ \t]?)+/, "");
        quoteLazy = inner.trim() !== "" && !FENCE_OPEN.test(inner.trimStart());
        paragraph = false;
        // a quoted `<!--` is raw HTML too: unclosed, GitHub shows nothing after it
        if (comments && inner.trimStart().startsWith("<!--")) {
          const at = inner.indexOf("<!--");
          html = blankRawComments(inner, { from: at, opener: true }).open;
          if (html) quoteLazy = false;
        }
        return "";
      }
      // the quote's lazy continuation
      if (quoteLazy && !startsBlock(rest, comments)) return "";
      quoteLazy = false;
      // an HTML block (CommonMark type 2: `<!--` opening it, which may interrupt a paragraph), or
      // a line of raw HTML (`<div>…`) with a comment in it: its comments hidden as raw HTML
      if (
        comments &&
        (rest.startsWith("<!--") || (RAW_HTML_START.test(rest) && rest.includes("<!--")))
      ) {
        const from = line.indexOf("<!--", line.length - rest.length);
        const read = blankRawComments(line, { from, opener: true });
        html = read.open;
        paragraph = false;
        return read.line;
      }
      const open = FENCE_OPEN.exec(rest);
      if (open && !(open[1][0] === "`" && open[2].includes("`"))) {
        fence = { char: open[1][0], len: open[1].length, depth: lists.length };
        paragraph = false;
        return "";
      }
      if (THEMATIC_BREAK.test(rest) || HEADING.test(rest)) {
        paragraph = false;
        return line;
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
        if (rest === "") return line;
        continue;
      }
      paragraph = true;
      return line;
    }
  }
}

/** The closed HTML comments of one paragraph, in order: each found once, in linear time. */
function commentFinder(text: string): (from: number) => { start: number; end: number } | undefined {
  let close = -1; // the last `-->` found: still the first one past any later `<!--` before it
  let done = false; // a `<!--` had no `-->` after it: no later one has either
  return (from) => {
    if (done) return undefined;
    const start = text.indexOf("<!--", from);
    if (start < 0) return undefined;
    // from just past `<!`: `<!-->` and `<!--->` are whole comments, as HTML reads them
    if (close < start + 2) close = text.indexOf("-->", start + 2);
    if (close < 0) {
      done = true; // an unclosed `<!--` in a paragraph is literal text
      return undefined;
    }
    return { start, end: close + 3 };
  };
}

/**
 * Inline code spans of one paragraph (no blank line inside) become spaces, and with `comments`
 * its closed HTML comments too: whichever opens first wins, as in CommonMark.
 */
function stripSpans(text: string, comments: boolean): string {
  const html = comments && text.includes("<!--");
  if (!text.includes("`") && !html) return text;
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
  const nextComment = html ? commentFinder(text) : () => undefined;
  let comment = nextComment(0);
  /** The comments opening before `before` and past the text already read become spaces. */
  const takeComments = (before: number) => {
    while (comment && comment.start < before) {
      if (comment.start >= at) {
        out += text.slice(at, comment.start) + blank(text.slice(comment.start, comment.end));
        at = comment.end;
      }
      comment = nextComment(Math.max(at, comment.start + 1));
    }
  };
  for (let i = 0; i < runs.length; i++) {
    const { start, len } = runs[i];
    takeComments(start);
    if (start < at) continue;
    const same = byLen.get(len)!;
    let c = cursor.get(len) ?? 0;
    while (c < same.length && same[c] <= i) c++;
    cursor.set(len, c);
    if (c === same.length) continue; // no closer: literal backticks
    const close = runs[same[c]];
    const end = close.start + close.len;
    out += text.slice(at, start) + blank(text.slice(start, end));
    at = end;
    i = same[c];
  }
  takeComments(Infinity);
  return out + text.slice(at);
}

/**
 * `markdown` without its quoted lines, code blocks, inline code and HTML comments: the text a
 * command may be read from. Line breaks (`\r\n`, `\r`) become `\n`; the result has as many lines
 * as the input.
 */
export function commandText(markdown: string): string {
  // one comment is read for control keywords and then for a gate's verdict: the last answer is
  // kept, so the second read costs a comparison
  return cached(lastCommand, markdown, true);
}

/**
 * `markdown` without its quoted lines, code blocks and inline code, its HTML comments kept:
 * {@linkcode commandText} before the HTML comment rule, for a line that is itself an HTML
 * comment (the self-marker's). Line breaks become `\n`; as many lines as the input.
 */
export function withoutQuotesAndCode(markdown: string): string {
  return cached(lastPlain, markdown, false);
}

/** A markdown text read last, and its answer. */
interface Last {
  markdown: string;
  text: string;
}

/** The last texts {@linkcode commandText} and {@linkcode withoutQuotesAndCode} were asked for. */
const lastCommand: Last = { markdown: "", text: "" };
const lastPlain: Last = { markdown: "", text: "" };

/** The answer for `markdown` (HTML comments blanked or not), from `last` when it was asked last. */
function cached(last: Last, markdown: string, comments: boolean): string {
  if (markdown === last.markdown) return last.text;
  const text = computeText(markdown, comments);
  last.markdown = markdown;
  last.text = text;
  return text;
}

function computeText(markdown: string, comments: boolean): string {
  const lines = stripBlocks(markdown.split(/\r\n|\r|\n/), comments);
  // code spans (and inline HTML comments) do not cross a blank line (a paragraph's end)
  const out: string[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length > 0) out.push(stripSpans(para.join("\n"), comments));
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
