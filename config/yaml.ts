/**
 * Reads YAML with positions: the parsed data, every problem located, and a way to find the line
 * and column of any key path in the source.
 *
 * Only plain YAML is read — the core schema's strings, numbers, booleans, null, mappings and
 * lists: `yaml`'s extra types (`!!binary`, `!!omap`, `!!set`, `!!timestamp`), merge keys and
 * custom tags are off, and what would use them is refused (see `_yaml_data.ts`). Nesting is
 * checked on the token tree first (`_yaml_depth.ts`), and keys are checked for duplicates in one
 * pass (the library's own check is quadratic in a mapping's size), so reading is linear.
 *
 * @module
 */
import {
  type Alias,
  Composer,
  type CST,
  type Document,
  type DocumentOptions,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  type ParseOptions,
  Parser,
  type SchemaOptions,
  type YAMLMap,
} from "yaml";
import { byPosition, type Problem } from "../errors.ts";
import { maskProblem } from "./_secrets.ts";
import { MAX_DEPTH, quote, toPlainData } from "./_yaml_data.ts";
import { scanTokens, tagBefore } from "./_yaml_depth.ts";
import type { KeyPath, Position } from "./_yaml_path.ts";

export { formatKeyPath, type KeyPath, type Position } from "./_yaml_path.ts";
export { MAX_ALIAS_VALUES, MAX_DEPTH } from "./_yaml_data.ts";

/** A parsed YAML file. */
export interface ParsedYaml {
  /** The plain data (`undefined` for an empty file). Unreliable when `problems` is non-empty. */
  data: unknown;
  /** Syntax problems and values that are not plain YAML, each located, tokens masked. */
  problems: Problem[];
  /**
   * Where the value at `path` starts (or its key, when the value is empty). When `path` runs
   * through an alias, the alias's position (see {@linkcode ParsedYaml.aliasNote}).
   */
  locate(path: KeyPath): Position | undefined;
  /** Where the key of the last segment of `path` starts (an item's start for an index). */
  locateKey(path: KeyPath): Position | undefined;
  /**
   * When `path` runs through an alias: a note for a problem's message saying where the value
   * really is and where its anchor is; else undefined.
   */
  aliasNote(path: KeyPath): string | undefined;
}

/** Options the document is composed with: the core schema and nothing more. */
const COMPOSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: "core",
  customTags: [],
  resolveKnownTags: false, // !!binary, !!omap, !!set, !!timestamp, … stay unresolved
  merge: false, // `<<` is an ordinary key (refused when plain)
  uniqueKeys: false, // checked in one pass by toPlainData
  intAsBigInt: false,
  strict: true,
};

interface Found {
  key?: Node;
  value?: Node | null;
  /** The first alias the path runs through, and the node it points at. */
  via?: { alias: Alias; target: Node };
}

/** First line of a `yaml` error message, without its trailing "at line L, column C:". */
function syntaxMessage(message: string): string {
  const first = message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
  return `YAML syntax: ${first.charAt(0).toLowerCase()}${first.slice(1)}`;
}

function isEmpty(node: Node | null | undefined): boolean {
  return !node || (isScalar(node) && node.value === null && !node.source) || !node.range;
}

/** Parses `text` (from `file`, used in problems) keeping positions. */
export function parseYaml(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line, col };
  };
  const problem = (offset: number, message: string): Problem => ({ file, ...at(offset), message });
  const tokens: CST.Token[] = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  const scan = scanTokens(tokens, MAX_DEPTH);
  if (scan.tooDeep) {
    return unreadable([
      problem(scan.tooDeep.offset, `nested deeper than ${MAX_DEPTH} levels; flatten the config`),
    ]);
  }
  const docs: Document.Parsed[] = [];
  for (const doc of new Composer(COMPOSE_OPTIONS).compose(tokens, true, text.length)) {
    docs.push(doc as Document.Parsed);
    if (docs.length > 1) break;
  }
  const doc = docs[0];
  const problems: Problem[] = doc.errors.map((e) => problem(e.pos[0], syntaxMessage(e.message)));
  if (docs.length > 1) {
    problems.push(problem(
      docs[1].range[0],
      'YAML syntax: the config is one document; remove the "---" and what follows it, ' +
        "or move it into the first",
    ));
  }
  let data: unknown;
  let aliasTargets = new Map<Alias, Node>();
  if (problems.length === 0) {
    const read = toPlainData(doc.contents as Node | null, {
      file,
      text,
      pos: at,
      tagAt: (offset) => tagBefore(scan.tags, offset),
    });
    data = read.data;
    aliasTargets = read.aliasTargets;
    problems.push(...read.problems);
  }
  problems.sort(byPosition);

  const pos = (node: Node | null | undefined): Position | undefined =>
    node?.range ? at(node.range[0]) : undefined;
  const indexes = new WeakMap<YAMLMap, Map<string, Pair>>();
  const pairOf = (map: YAMLMap, seg: string | number): Pair | undefined => {
    let index = indexes.get(map);
    if (!index) {
      index = new Map();
      for (const pair of map.items as Pair[]) {
        const key = pair.key;
        if (isScalar(key) && key.value !== null && !index.has(String(key.value))) {
          index.set(String(key.value), pair);
        }
      }
      indexes.set(map, index);
    }
    return index.get(String(seg));
  };
  const find = (path: KeyPath): Found | undefined => {
    let found: Found = { value: doc.contents as Node | null };
    for (const seg of path) {
      let node = found.value;
      let via = found.via;
      if (isAlias(node)) {
        const target = aliasTargets.get(node);
        if (!target) return undefined;
        via ??= { alias: node, target };
        node = target;
      }
      if (isMap(node)) {
        const pair = pairOf(node, seg);
        if (!pair) return undefined;
        found = { key: pair.key as Node, value: pair.value as Node | null, via };
      } else if (isSeq(node) && typeof seg === "number") {
        const item = node.items[seg] as Node | undefined;
        if (!item) return undefined;
        found = { key: item, value: item, via };
      } else return undefined;
    }
    if (isAlias(found.value) && !found.via) {
      const target = aliasTargets.get(found.value);
      if (target) found.via = { alias: found.value, target };
    }
    return found;
  };
  const locateValue = (f: Found) =>
    isEmpty(f.value) ? pos(f.key) ?? pos(doc.contents as Node) : pos(f.value);

  return {
    data,
    problems: problems.map(maskProblem),
    locate(path) {
      const f = find(path);
      if (!f) return undefined;
      return f.via ? pos(f.via.alias) : locateValue(f);
    },
    locateKey(path) {
      const f = find(path);
      if (!f) return undefined;
      return f.via ? pos(f.via.alias) : pos(f.key ?? f.value);
    },
    aliasNote(path) {
      const f = find(path);
      if (!f?.via) return undefined;
      const anchor = pos(f.via.target);
      const name = quote(f.via.alias.source);
      const inner = isAlias(f.value) && f.value === f.via.alias ? anchor : locateValue(f);
      const where = inner && anchor && (inner.line !== anchor.line || inner.col !== anchor.col)
        ? `; it is at line ${inner.line}, col ${inner.col}, under the anchor &${name} at line ${anchor.line}, col ${anchor.col}`
        : anchor
        ? `; the anchor &${name} is at line ${anchor.line}, col ${anchor.col}`
        : "";
      return `(this value comes through the alias *${name}${where})`;
    },
  };
}

function unreadable(problems: Problem[]): ParsedYaml {
  return {
    data: undefined,
    problems: problems.map(maskProblem),
    locate: () => undefined,
    locateKey: () => undefined,
    aliasNote: () => undefined,
  };
}

/** Where `path` is (its key when `key`), else its nearest located ancestor, else the file's start. */
export function locateNear(parsed: ParsedYaml, path: KeyPath, key = false): Position {
  const first = key ? parsed.locateKey(path) : parsed.locate(path);
  if (first) return first;
  for (let n = path.length - 1; n > 0; n--) {
    const at = parsed.locate(path.slice(0, n));
    if (at) return at;
  }
  return parsed.locate([]) ?? { line: 1, col: 1 };
}
