/**
 * Reads YAML with positions: the parsed data, every syntax error located, and a way to find
 * the line and column of any key path in the source.
 *
 * @module
 */
import { type Document, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { Problem } from "../errors.ts";

/** A key path: map keys and sequence indexes, e.g. `["hooks", 1, "on", 0]`. */
export type KeyPath = (string | number)[];

/** A 1-based source position. */
export interface Position {
  line: number;
  col: number;
}

/** A parsed YAML file. */
export interface ParsedYaml {
  /** The plain data (`undefined` for an empty file). Unreliable when `problems` is non-empty. */
  data: unknown;
  /** Syntax problems, located. */
  problems: Problem[];
  /** Where the value at `path` starts (or its key, when the value is empty). */
  locate(path: KeyPath): Position | undefined;
  /** Where the key of the last segment of `path` starts (an item's start for an index). */
  locateKey(path: KeyPath): Position | undefined;
}

interface Found {
  key?: Node;
  value?: Node | null;
}

function find(doc: Document, path: KeyPath): Found | undefined {
  let found: Found = { value: doc.contents as Node | null };
  for (const seg of path) {
    const node = found.value;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return undefined;
      found = { key: pair.key as Node, value: pair.value as Node | null };
    } else if (isSeq(node) && typeof seg === "number") {
      const item = node.items[seg] as Node | undefined;
      if (!item) return undefined;
      found = { key: item, value: item };
    } else return undefined;
  }
  return found;
}

function isEmpty(node: Node | null | undefined): boolean {
  return !node || (isScalar(node) && node.value === null && !node.source) || !node.range;
}

/** First line of a `yaml` error message, without its trailing "at line L, column C:". */
function syntaxMessage(message: string): string {
  const first = message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  return `YAML syntax: ${first.charAt(0).toLowerCase()}${first.slice(1)}`;
}

/** Parses `text` (from `file`, used in problems) keeping positions. */
export function parseYaml(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const pos = (node: Node | null | undefined): Position | undefined =>
    node?.range ? lineCounter.linePos(node.range[0]) : undefined;
  const problems: Problem[] = doc.errors.map((e) => ({
    file,
    line: e.linePos?.[0].line,
    col: e.linePos?.[0].col,
    message: syntaxMessage(e.message),
  }));
  let data: unknown;
  if (problems.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 1000 });
    } catch (error) {
      problems.push({ file, message: `YAML: ${(error as Error).message}` });
    }
  }
  return {
    data,
    problems,
    locate(path) {
      const f = find(doc, path);
      if (!f) return undefined;
      return isEmpty(f.value) ? pos(f.key) ?? pos(doc.contents as Node) : pos(f.value);
    },
    locateKey(path) {
      const f = find(doc, path);
      return f ? pos(f.key ?? f.value) : undefined;
    },
  };
}

/** `hooks[1].on[0]`-style rendering of a key path. */
export function formatKeyPath(path: KeyPath): string {
  return path.map((seg, i) => typeof seg === "number" ? `[${seg}]` : i === 0 ? seg : `.${seg}`)
    .join("");
}
