/**
 * Finds every module specifier of a hook file for the native load path (`_native.ts`), which
 * replaces each one with a `blob:` URL of its own choosing: on the tokens of `_native_tokens.ts`,
 * every `import` and `export` keyword (one not after `.` or `?.`) must begin a declaration of a
 * form read here — `import "s"`, `import <names> from "s"` (including `type`), `import.meta`,
 * `export * [as n] from "s"`, `export [type] {names} [from "s"]`, or an `export` that takes no
 * specifier — else the file is not read natively. So are `import()`, import attributes (`with`),
 * string import names, `import x = require(…)` and code after an import on its line (a new
 * specifier would shift its columns). Anything not read here goes through esbuild instead.
 *
 * @module
 */
import { type Token, tokenize } from "./_native_tokens.ts";

/** One module specifier in a file. */
export interface Specifier {
  /** The specifier's text, without quotes. */
  specifier: string;
  /** Where its string literal (quotes included) starts and ends in the file. */
  start: number;
  end: number;
  /** An `import type` / `export type` declaration: nothing is loaded for it at run time. */
  typeOnly: boolean;
  /**
   * For `import { a, b as c } from "s"` alone (no default, no namespace): the names imported
   * (`a`, `b`), `type` ones left out; absent for every other form.
   */
  names?: string[];
}

/** The file's specifiers, or why it is not read natively. */
export type Scan = { specifiers: Specifier[] } | { unsure: string };

class Unsure extends Error {}

const isWord = (t: Token | undefined, text?: string) =>
  t?.kind === "word" && (text === undefined || t.text === text);
const isPunct = (t: Token | undefined, text: string) => t?.kind === "punct" && t.text === text;

/** Every specifier of `src` (TypeScript or JavaScript), or why they cannot all be found. */
export function scanSpecifiers(src: string): Scan {
  const read = tokenize(src);
  if ("unsure" in read) return read;
  const t = read.tokens;
  const found: Specifier[] = [];
  try {
    for (let k = 0; k < t.length; k++) {
      const word = t[k].kind === "word" ? t[k].text : "";
      if (word !== "import" && word !== "export") continue;
      if (isPunct(t[k - 1], ".") || isPunct(t[k - 1], "?.")) continue; // a property
      const at = word === "import" ? importDecl(t, k) : exportDecl(t, k);
      if (at === undefined) continue;
      const names = word === "import" && !at.typeOnly ? namedOnly(t, k + 1, at.index) : undefined;
      found.push({ ...specifierAt(t, at.index, at.typeOnly), ...(names ? { names } : {}) });
    }
  } catch (err) {
    if (err instanceof Unsure) return { unsure: err.message };
    throw err;
  }
  return { specifiers: found };
}

/** The string token of an import declaration at `k`, or none (`import.meta`). */
function importDecl(t: Token[], k: number): { index: number; typeOnly: boolean } | undefined {
  const next = t[k + 1];
  if (isPunct(next, "(")) throw new Unsure("an import() expression");
  if (isPunct(next, ".")) {
    if (isWord(t[k + 2], "meta")) return undefined;
    throw new Unsure("import. not followed by meta");
  }
  if (next?.kind === "string") return { index: k + 1, typeOnly: false };
  // `import type X from`, `import type {…} from`, `import type * as X from`; not `import type
  // from "s"` (a default import named type) or `import type, {…} from`
  const typeOnly = isWord(next, "type") && !isPunct(t[k + 2], ",") &&
    !(isWord(t[k + 2], "from") && t[k + 3]?.kind === "string");
  return { index: clauseEnd(t, k + 1, "import"), typeOnly };
}

/** The string token of an `export … from` at `k`, or none for an export that takes none. */
function exportDecl(t: Token[], k: number): { index: number; typeOnly: boolean } | undefined {
  let j = k + 1;
  const typeOnly = isWord(t[j], "type") && (isPunct(t[j + 1], "*") || isPunct(t[j + 1], "{"));
  if (typeOnly) j++;
  if (isPunct(t[j], "*")) return { index: clauseEnd(t, j, "export"), typeOnly };
  if (!isPunct(t[j], "{")) return undefined; // export const/default/class/…: no specifier
  for (j++; !isPunct(t[j], "}"); j++) {
    if (!(t[j]?.kind === "word" || isPunct(t[j], ","))) {
      throw new Unsure(`export {…} holding ${t[j] ? `"${t[j].text}"` : "the end of the file"}`);
    }
  }
  if (!isWord(t[j + 1], "from")) return undefined;
  if (t[j + 2]?.kind !== "string") throw new Unsure("export {…} from without a string");
  return { index: j + 2, typeOnly };
}

/** The names of a clause `{ a, b as c, type D } from` between `from` (at `to`), else none. */
function namedOnly(t: Token[], from: number, to: number): string[] | undefined {
  if (!isPunct(t[from], "{") || !isPunct(t[to - 2], "}")) return undefined;
  const names: string[] = [];
  for (let j = from + 1; j < to - 2; j++) {
    if (isPunct(t[j], ",")) continue;
    if (isWord(t[j], "type") && isWord(t[j + 1]) && !isWord(t[j + 1], "as")) {
      j++; // `type X`: nothing imported at run time
      if (isWord(t[j + 1], "as")) j += 2;
      continue;
    }
    if (!isWord(t[j])) return undefined;
    names.push(t[j].text);
    if (isWord(t[j + 1], "as")) j += 2;
  }
  return names;
}

/**
 * From the token after `import` (or at an export's `*`), the index of the string after the
 * clause's `from`: names, `,`, `*` and braces only, `from` outside braces before a string.
 */
function clauseEnd(t: Token[], j: number, what: string): number {
  let depth = 0;
  for (; j < t.length; j++) {
    const tok = t[j];
    if (depth === 0 && isWord(tok, "from") && t[j + 1]?.kind === "string") return j + 1;
    if (isPunct(tok, "{")) depth++;
    else if (isPunct(tok, "}")) depth--;
    else if (!(tok.kind === "word" || isPunct(tok, ",") || isPunct(tok, "*"))) {
      throw new Unsure(`an ${what} declaration holding "${tok.text}"`);
    }
    if (depth < 0 || depth > 1) throw new Unsure(`an ${what} declaration with odd braces`);
  }
  throw new Unsure(`an ${what} declaration without from "…"`);
}

/** The specifier at string token `i`, checked: no attributes, nothing after it on its line. */
function specifierAt(t: Token[], i: number, typeOnly: boolean): Specifier {
  const tok = t[i];
  const after = t[i + 1];
  if (isWord(after, "with") || isWord(after, "assert")) {
    throw new Unsure("an import with attributes");
  }
  const rest = isPunct(after, ";") && !after.newline ? t[i + 2] : after;
  if (rest !== undefined && !rest.newline) throw new Unsure("code after an import on its line");
  const body = tok.text.slice(1, -1);
  if (body.includes("\\")) throw new Unsure("an escape in a module specifier");
  return { specifier: body, start: tok.start, end: tok.end, typeOnly };
}
