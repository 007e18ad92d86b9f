/**
 * Finds dynamic `import()` calls whose specifier is not a string literal in a hook's source: a
 * small tokenizer that skips strings, template literals, comments and regular expressions. The
 * bundler refuses such imports at load (it cannot check what they would load); as a second line,
 * esbuild is told the target has no `import()`, so one this scan misses becomes a call that
 * throws instead of an import.
 *
 * @module
 */

/** Where a computed `import(` starts: 1-based line, 0-based column (esbuild's convention). */
export interface SourceSpot {
  line: number;
  column: number;
}

type Prev = "start" | "word" | "value" | "punct";

/** Words after which a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
  "extends",
]);

const isWordChar = (c: string | undefined) => c !== undefined && /[\w$#\u0080-\uffff]/.test(c);

/** Index after the whitespace and comments at `i`. */
function skipTrivia(src: string, i: number): number {
  for (;;) {
    if (/\s/.test(src[i] ?? "")) i++;
    else if (src.startsWith("//", i)) i = lineEnd(src, i);
    else if (src.startsWith("/*", i)) i = blockEnd(src, i);
    else return i;
  }
}

function lineEnd(src: string, i: number): number {
  const nl = src.indexOf("\n", i);
  return nl < 0 ? src.length : nl;
}

function blockEnd(src: string, i: number): number {
  const end = src.indexOf("*/", i + 2);
  return end < 0 ? src.length : end + 2;
}

/** Index after the quoted string starting at `i`. */
function skipString(src: string, i: number): number {
  const q = src[i];
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === "\\") j++;
    else if (src[j] === q || src[j] === "\n") return j + 1;
  }
  return src.length;
}

/** From inside a template at `i`: the index after its closing backtick or after a `${`. */
function scanTemplate(src: string, i: number): { end: number; hole: boolean } {
  for (let j = i; j < src.length; j++) {
    if (src[j] === "\\") j++;
    else if (src[j] === "`") return { end: j + 1, hole: false };
    else if (src[j] === "$" && src[j + 1] === "{") return { end: j + 2, hole: true };
  }
  return { end: src.length, hole: false };
}

/** Index after the regular expression literal starting at `i`. */
function skipRegex(src: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === "\\") j++;
    else if (c === "\n") return j;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) {
      j++;
      while (isWordChar(src[j])) j++;
      return j;
    }
  }
  return src.length;
}

/** Is the `import(` whose `(` is at `open` given one string literal (then `)` or `,`)? */
function literalArgument(src: string, open: number): boolean {
  let i = skipTrivia(src, open + 1);
  if (src[i] === '"' || src[i] === "'") i = skipString(src, i);
  else if (src[i] === "`") {
    const t = scanTemplate(src, i + 1);
    if (t.hole) return false;
    i = t.end;
  } else return false;
  i = skipTrivia(src, i);
  return src[i] === ")" || src[i] === ",";
}

function spotOf(src: string, index: number): SourceSpot {
  const before = src.slice(0, index);
  const line = before.split("\n").length;
  return { line, column: index - (before.lastIndexOf("\n") + 1) };
}

/** Every `import(` in `src` (TypeScript or JavaScript) whose specifier is not a literal. */
export function computedImports(src: string): SourceSpot[] {
  const found: SourceSpot[] = [];
  const braces: ("code" | "template")[] = [];
  let prev: Prev = "start";
  let prevText = "";
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const start = i;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (src.startsWith("//", i) || src.startsWith("/*", i)) {
      i = skipTrivia(src, i);
      continue;
    }
    if (c === '"' || c === "'") {
      i = skipString(src, i);
      prev = "value";
    } else if (c === "`" || (c === "}" && braces.at(-1) === "template")) {
      if (c === "}") braces.pop();
      const t = scanTemplate(src, i + 1);
      i = t.end;
      if (t.hole) braces.push("template");
      [prev, prevText] = t.hole ? ["punct", "${"] : ["value", ""];
    } else if (c === "/") {
      const regex: boolean = prev === "start" || (prev === "punct" && !")]}".includes(prevText)) ||
        (prev === "word" && BEFORE_REGEX.has(prevText));
      i = regex ? skipRegex(src, i) : i + 1;
      [prev, prevText] = regex ? ["value", ""] : ["punct", "/"];
    } else if (isWordChar(c)) {
      while (isWordChar(src[i])) i++;
      const word = src.slice(start, i);
      const member = prev === "punct" && (prevText === "." || prevText === "?.");
      if (word === "import" && !member) {
        const open = skipTrivia(src, i);
        if (src[open] === "(" && !literalArgument(src, open)) found.push(spotOf(src, start));
      }
      [prev, prevText] = /^\d/.test(word) ? ["value", ""] : ["word", word];
    } else {
      const op = src.startsWith("?.", i) && !/\d/.test(src[i + 2] ?? "")
        ? "?."
        : src.startsWith("...", i)
        ? "..."
        : c;
      if (op === "{") braces.push("code");
      if (op === "}") braces.pop();
      i += op.length;
      [prev, prevText] = ["punct", op];
    }
  }
  return found;
}
