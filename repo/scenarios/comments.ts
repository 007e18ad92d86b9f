/**
 * The comments of a source file, as blocks of lines, each line with its 1-based number and its
 * text without the comment's markers. A small lexer per family skips string literals, so a glob
 * such as `"**" + "/*_test.ts"` written in a string opens no comment:
 *
 * | syntax   | files                                   | blocks                                                   |
 * | -------- | --------------------------------------- | -------------------------------------------------------- |
 * | `c`      | `.ts` `.tsx` `.js` `.jsx` `.mjs` `.cjs` … | each block comment (a `/**` doc comment too); a run of `//` lines on consecutive lines |
 * | `go`     | `.go`                                   | as `c`, with backquoted strings raw (no escapes)         |
 * | `python` | `.py`                                   | each `"""…"""` / `'''…'''` string (docstrings); a run of `#` lines |
 * | `plain`  | `.feature`                              | the whole file, one block                                |
 *
 * Line ends may be LF, CRLF or CR. A string that does not end on its line ends there (a regex
 * literal read as a string spoils one line, not the file).
 *
 * @module
 */

/** How a file's comments are written. */
export type CommentSyntax = "c" | "go" | "python" | "plain";

/** One line of a comment. */
export interface CommentLine {
  /** 1-based line number in the file. */
  line: number;
  /** The line's text, the comment's markers (`//`, `#`, a leading `*`) taken off. */
  text: string;
}

/** The lines of one comment (a block comment, a docstring, a run of line comments). */
export type CommentBlock = CommentLine[];

const BY_EXTENSION: Record<string, CommentSyntax> = {
  ts: "c",
  tsx: "c",
  mts: "c",
  cts: "c",
  js: "c",
  jsx: "c",
  mjs: "c",
  cjs: "c",
  java: "c",
  kt: "c",
  cs: "c",
  swift: "c",
  go: "go",
  py: "python",
  feature: "plain",
};

/** The syntax of a file by its extension; undefined for a file this reader does not know. */
export function syntaxOf(path: string): CommentSyntax | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  return BY_EXTENSION[path.slice(dot + 1).toLowerCase()];
}

/** The comment blocks of `text`, in order. */
export function commentBlocks(text: string, syntax: CommentSyntax): CommentBlock[] {
  const src = text.replace(/\r\n?/g, "\n");
  if (syntax === "plain") return [src.split("\n").map((t, i) => ({ line: i + 1, text: t }))];
  return new Lexer(src, syntax).run();
}

class Lexer {
  #i = 0;
  #line = 1;
  #blocks: CommentBlock[] = [];
  /** The run of line comments being gathered, and the line of its last comment. */
  #run?: { block: CommentBlock; last: number };

  constructor(readonly src: string, readonly syntax: Exclude<CommentSyntax, "plain">) {}

  run(): CommentBlock[] {
    const s = this.src;
    const python = this.syntax === "python";
    while (this.#i < s.length) {
      const ch = s[this.#i];
      if (ch === "\n") {
        this.#line++;
        this.#i++;
      } else if (!python && s.startsWith("//", this.#i)) this.#lineComment(2);
      else if (python && ch === "#") this.#lineComment(1);
      else if (!python && s.startsWith("/*", this.#i)) this.#blockComment();
      else if (python && (s.startsWith('"""', this.#i) || s.startsWith("'''", this.#i))) {
        this.#docstring(s.slice(this.#i, this.#i + 3));
      } else if (ch === '"' || ch === "'") this.#string(ch, { multiline: false, escapes: true });
      else if (ch === "`" && !python) {
        this.#string(ch, { multiline: true, escapes: this.syntax !== "go" });
      } else this.#i++;
    }
    return this.#blocks;
  }

  /** Pushes a block of `texts` starting on line `first`. */
  #push(texts: string[], first: number): void {
    this.#blocks.push(texts.map((text, k) => ({ line: first + k, text })));
  }

  #lineComment(marker: number): void {
    const s = this.src;
    const end = s.indexOf("\n", this.#i);
    const stop = end < 0 ? s.length : end;
    const text = s.slice(this.#i + marker, stop).replace(
      this.syntax === "python" ? /^#+/ : /^\/+/,
      "",
    );
    if (this.#run && this.#run.last === this.#line - 1) {
      this.#run.block.push({ line: this.#line, text });
      this.#run.last = this.#line;
    } else {
      const block: CommentBlock = [{ line: this.#line, text }];
      this.#blocks.push(block);
      this.#run = { block, last: this.#line };
    }
    this.#i = stop;
  }

  #blockComment(): void {
    const s = this.src;
    const end = s.indexOf("*/", this.#i + 2);
    const stop = end < 0 ? s.length : end;
    const lines = s.slice(this.#i + 2, stop).split("\n");
    // `/**` opens a doc comment; on the lines below, a leading `*` is decoration
    const texts = lines.map((t, k) => k === 0 ? t.replace(/^\*+/, "") : t.replace(/^\s*\*+/, ""));
    this.#push(texts, this.#line);
    this.#line += lines.length - 1;
    this.#i = end < 0 ? s.length : end + 2;
  }

  #docstring(quote: string): void {
    const s = this.src;
    const end = s.indexOf(quote, this.#i + 3);
    const stop = end < 0 ? s.length : end;
    const lines = s.slice(this.#i + 3, stop).split("\n");
    this.#push(lines, this.#line);
    this.#line += lines.length - 1;
    this.#i = end < 0 ? s.length : end + 3;
  }

  #string(quote: string, o: { multiline: boolean; escapes: boolean }): void {
    const s = this.src;
    let i = this.#i + 1;
    while (i < s.length) {
      const ch = s[i];
      if (o.escapes && ch === "\\") {
        if (s[i + 1] === "\n") this.#line++;
        i += 2;
      } else if (ch === quote) {
        i++;
        break;
      } else if (ch === "\n") {
        if (!o.multiline) break; // unterminated: the string ends with its line
        this.#line++;
        i++;
      } else i++;
    }
    this.#i = i;
  }
}
