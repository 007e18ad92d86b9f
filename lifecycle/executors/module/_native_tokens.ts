/**
 * A deliberately strict tokenizer for the native load path (`_native.ts`): it cuts a hook's
 * source into tokens only when it is sure to see the file as JavaScript does, and gives up
 * otherwise, so every `import` and `export` keyword of the file is among its tokens. It gives up
 * on anything whose reading is ambiguous to a tokenizer without a parser: a `/` that could start
 * a regular expression (only a division after a number, a non-keyword name or `]` is taken), a
 * backslash or a non-ASCII character outside strings and comments, U+2028/U+2029, a line break
 * inside a quoted string, HTML-like comments, a hashbang, unbalanced braces and unterminated
 * literals. Giving up is safe: the hook then goes through the esbuild bundler, as before.
 *
 * @module
 */

/** One token: a name (`word`), a number, a quoted string, a template piece or a punctuator. */
export interface Token {
  kind: "word" | "number" | "string" | "template" | "punct";
  /** The token's text (a string's with its quotes). */
  text: string;
  start: number;
  end: number;
  /** Does a line break come between this token and the one before? */
  newline: boolean;
}

/** The tokens, or why the file is not read this way. */
export type Tokens = { tokens: Token[] } | { unsure: string };

/** Names after which a `/` could start a regular expression: never read as a division. */
const NOT_BEFORE_DIVISION = new Set(
  ("await break case catch class const continue debugger default delete do else enum export " +
    "extends false finally for function if import in instanceof new null return super switch " +
    "this throw true try typeof var void while with yield let static implements interface " +
    "package private protected public as async from get of set target meta accessor abstract " +
    "any asserts bigint boolean declare global infer is keyof module namespace never number " +
    "object override readonly require satisfies string symbol type undefined unique unknown out")
    .split(" "),
);

/** Comments that make Deno load or treat code differently: such files are not read natively. */
const PRAGMAS = ["@jsx", "@ts-types", "@deno-types", "<reference", "@ts-self-types"];

class Unsure extends Error {}

const WORD_START = /[A-Za-z_$]/;
const WORD = /[A-Za-z0-9_$]/;
const NUMBER = /[0-9A-Za-z_.]/;
const SPACE = /[ \t\n\r\v\f]/;

/** Cuts `src` into tokens, or says why it will not. */
export function tokenize(src: string): Tokens {
  if (/[\u2028\u2029]/.test(src)) return { unsure: "a U+2028/U+2029 line separator" };
  const pragma = PRAGMAS.find((p) => src.includes(p));
  if (pragma) return { unsure: `a "${pragma}" pragma` };
  try {
    return { tokens: new Lexer(src).run() };
  } catch (err) {
    if (err instanceof Unsure) return { unsure: err.message };
    throw err;
  }
}

class Lexer {
  readonly tokens: Token[] = [];
  /** What each open `{` is: a block of code, or a template's `${`. */
  readonly braces: ("code" | "template")[] = [];
  i = 0;
  newline = false;

  constructor(readonly src: string) {}

  run(): Token[] {
    const src = this.src;
    while (this.i < src.length) {
      const c = src[this.i];
      if (SPACE.test(c)) {
        if (c === "\n" || c === "\r") this.newline = true;
        this.i++;
      } else if (src.startsWith("//", this.i)) {
        this.i = lineEnd(src, this.i);
      } else if (src.startsWith("/*", this.i)) {
        const end = src.indexOf("*/", this.i + 2);
        if (end < 0) throw new Unsure("an unterminated comment");
        if (/[\n\r]/.test(src.slice(this.i, end))) this.newline = true;
        this.i = end + 2;
      } else if (c === '"' || c === "'") {
        this.push("string", this.quoted());
      } else if (c === "`") {
        this.push("template", this.template(this.i + 1));
      } else if (c === "}" && this.braces.at(-1) === "template") {
        this.braces.pop();
        this.push("template", this.template(this.i + 1));
      } else if (WORD_START.test(c) || (c === "#" && WORD_START.test(src[this.i + 1] ?? ""))) {
        let j = this.i + 1;
        while (j < src.length && WORD.test(src[j])) j++;
        this.push("word", j);
      } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[this.i + 1] ?? ""))) {
        this.push("number", this.number());
      } else {
        this.punct(c);
      }
    }
    if (this.braces.length > 0) throw new Unsure("an unclosed brace or template");
    return this.tokens;
  }

  push(kind: Token["kind"], end: number): void {
    const start = this.i;
    this.tokens.push({ kind, text: this.src.slice(start, end), start, end, newline: this.newline });
    this.newline = false;
    this.i = end;
  }

  /** The end of the quoted string at `i`; a line break inside it is not taken. */
  quoted(): number {
    const { src } = this;
    const q = src[this.i];
    for (let j = this.i + 1; j < src.length; j++) {
      if (src[j] === "\\") j++;
      else if (src[j] === "\n" || src[j] === "\r") throw new Unsure("a line break in a string");
      else if (src[j] === q) return j + 1;
    }
    throw new Unsure("an unterminated string");
  }

  /** From inside a template at `j`: the end after its backtick, or after a `${` (pushed). */
  template(j: number): number {
    const { src } = this;
    for (; j < src.length; j++) {
      if (src[j] === "\\") j++;
      else if (src[j] === "`") return j + 1;
      else if (src[j] === "$" && src[j + 1] === "{") {
        this.braces.push("template");
        return j + 2;
      }
    }
    throw new Unsure("an unterminated template literal");
  }

  number(): number {
    const { src } = this;
    let j = this.i;
    const hex = /^0[xX]/.test(src.slice(j, j + 2));
    while (j < src.length) {
      if (NUMBER.test(src[j])) j++;
      else if (!hex && /[eE]/.test(src[j - 1]) && /[+-]/.test(src[j])) j++;
      else break;
    }
    return j;
  }

  punct(c: string): void {
    const { src } = this;
    if (c === "\\") throw new Unsure("a backslash outside a string");
    if (c.charCodeAt(0) > 0x7e || c.charCodeAt(0) < 0x20) {
      throw new Unsure("a non-ASCII or control character outside strings and comments");
    }
    if (c === "#") throw new Unsure("a # that starts no private name (a hashbang?)");
    if (src.startsWith("<!--", this.i) || src.startsWith("-->", this.i)) {
      throw new Unsure("an HTML-like comment");
    }
    if (c === "/") {
      const prev = this.tokens.at(-1);
      const division = prev !== undefined &&
        (prev.kind === "number" || (prev.kind === "punct" && prev.text === "]") ||
          (prev.kind === "word" && !NOT_BEFORE_DIVISION.has(prev.text)));
      if (!division) throw new Unsure("a / that may start a regular expression");
      return this.push("punct", this.i + 1);
    }
    if (c === "{") this.braces.push("code");
    if (c === "}" && this.braces.pop() !== "code") throw new Unsure("an unbalanced }");
    let len = 1;
    if (src.startsWith("...", this.i)) len = 3;
    else if (src.startsWith("?.", this.i) && !/[0-9]/.test(src[this.i + 2] ?? "")) len = 2;
    this.push("punct", this.i + len);
  }
}

function lineEnd(src: string, i: number): number {
  for (let j = i; j < src.length; j++) if (src[j] === "\n" || src[j] === "\r") return j;
  return src.length;
}
