/**
 * Turns a composed YAML document into plain data — strings, numbers, booleans, null, plain
 * objects and arrays, nothing else — in one linear walk that refuses, each located:
 *
 * - any tag beyond the core schema's (`!!binary`, `!!omap`, `!!set`, `!!timestamp`, `!foo`, …)
 *   and a core tag that does not fit its value (`!!int abc`);
 * - keys that are not non-empty strings (`~: x`, `"": x`, `? [a, b]: 1`, `*alias: x`), merge
 *   keys (`<<`), and keys that are equal once converted to strings (`1` and `"1"`);
 * - aliases without an anchor before them, aliases inside their own anchor (cycles), aliases
 *   that nest deeper than {@linkcode MAX_DEPTH}, and aliases that expand to more than
 *   {@linkcode MAX_ALIAS_VALUES} values (alias bombs).
 *
 * An alias's value is shared, not copied (as `yaml`'s own `toJS` does), and counted at its full
 * size, so what later walks the data (the schema check, defaults) stays bounded.
 *
 * @module
 */
import {
  type Alias,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import type { Problem } from "../errors.ts";
import { maskTokens } from "./_secrets.ts";
import { formatKeyPath, type KeyPath, type Position } from "./_yaml_path.ts";

/** The deepest nesting of mappings and lists read (a config needs far less). */
export const MAX_DEPTH = 64;

/** The most values aliases may add to a config (an alias bomb adds billions). */
export const MAX_ALIAS_VALUES = 10_000;

const CORE = "tag:yaml.org,2002:";
const SCALAR_TAGS: Record<string, (v: unknown) => boolean> = {
  [`${CORE}str`]: (v) => typeof v === "string",
  [`${CORE}int`]: (v) => typeof v === "number" && Number.isInteger(v),
  [`${CORE}float`]: (v) => typeof v === "number",
  [`${CORE}bool`]: (v) => typeof v === "boolean",
  [`${CORE}null`]: (v) => v === null,
};
const PLAIN = "plain YAML (strings, numbers, true/false, null, mappings and lists)";

/** `!!binary` for a core-namespace tag, the tag as written otherwise. */
function showTag(tag: string): string {
  if (tag.startsWith(CORE)) return `!!${tag.slice(CORE.length)}`;
  return tag.startsWith("!") ? tag : `!<${tag}>`;
}

/** Text a problem quotes, tokens masked first, then shortened. */
export function quote(text: string, max = 40): string {
  const masked = maskTokens(text);
  return masked.length > max ? masked.slice(0, max - 3) + "..." : masked;
}

/** The plain data of a document, its problems, and where each alias points. */
export interface DataResult {
  data: unknown;
  problems: Problem[];
  /** Each alias's anchored node (the anchor of that name last defined before the alias). */
  aliasTargets: Map<Alias, Node>;
}

interface Converted {
  value: unknown;
  /** Values in it, aliases counted at their full size. */
  size: number;
  /** Levels of mappings and lists in it (a scalar: 0). */
  depth: number;
}

const NULL: Converted = { value: null, size: 1, depth: 0 };
const setKey = (out: Record<string, unknown>, key: string, value: unknown) => {
  // a `__proto__` key is data, never the object's prototype
  if (key === "__proto__") {
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else out[key] = value;
};

class Walker {
  readonly problems: Problem[] = [];
  readonly aliasTargets = new Map<Alias, Node>();
  readonly #anchors = new Map<string, Node>();
  readonly #done = new Map<Node, Converted>();
  readonly #open = new Set<Node>();
  readonly #path: KeyPath = [];
  #aliasValues = 0;
  #bombed = false;

  constructor(
    readonly file: string,
    readonly text: string,
    readonly pos: (offset: number) => Position,
    readonly tagAt: (offset: number) => number,
  ) {}

  add(offset: number, message: string, opts: { path?: boolean } = {}): void {
    const { line, col } = this.pos(offset);
    const path = opts.path === false ? "" : formatKeyPath(this.#path);
    this.problems.push({ file: this.file, line, col, ...(path ? { path } : {}), message });
  }

  convert(node: Node | null | undefined, depth: number, at: number): Converted {
    if (!node) return NULL;
    const start = node.range?.[0] ?? at;
    if (isAlias(node)) return this.#alias(node, depth, start);
    const done = this.#done.get(node);
    if (done) return done;
    if (node.anchor) this.#anchors.set(node.anchor, node);
    let result: Converted;
    if (isScalar(node)) {
      result = { value: node.value, size: 1, depth: 0 };
      const fits = node.tag === undefined ? undefined : SCALAR_TAGS[node.tag];
      if (node.tag !== undefined && !fits) this.#badTag(node.tag, start);
      else if (fits && !fits(node.value)) {
        this.add(
          this.tagAt(start),
          `the tag ${showTag(node.tag!)} does not fit this value; remove the tag or fix the value`,
        );
      } else if (
        node.value !== null && !["string", "number", "boolean"].includes(typeof node.value)
      ) {
        this.add(start, `is not ${PLAIN}`);
        result = NULL;
      }
    } else if (isMap(node) || isSeq(node)) {
      const want = isMap(node) ? `${CORE}map` : `${CORE}seq`;
      if (node.tag && node.tag !== want) {
        if (node.tag === `${CORE}map` || node.tag === `${CORE}seq`) {
          this.add(
            this.tagAt(start),
            `the tag ${showTag(node.tag)} does not fit this value; remove the tag`,
          );
        } else this.#badTag(node.tag, start);
      }
      if (depth >= MAX_DEPTH) {
        this.add(start, `nested deeper than ${MAX_DEPTH} levels; flatten the config`);
        return NULL;
      }
      this.#open.add(node);
      result = isMap(node) ? this.#map(node, depth + 1, start) : this.#seq(node, depth + 1, start);
      this.#open.delete(node);
    } else {
      this.add(start, `is not ${PLAIN}`);
      result = NULL;
    }
    this.#done.set(node, result);
    return result;
  }

  #badTag(tag: string, offset: number): void {
    this.add(
      this.tagAt(offset),
      `the tag ${quote(showTag(tag))} is not allowed: the config is ${PLAIN}; remove the tag`,
    );
  }

  #alias(node: Alias, depth: number, offset: number): Converted {
    const name = quote(node.source);
    const target = this.#anchors.get(node.source);
    if (!target) {
      this.add(
        offset,
        `the alias *${name} has no anchor &${name} before it; define the anchor first, or write the value out`,
      );
      return NULL;
    }
    this.aliasTargets.set(node, target);
    if (this.#open.has(target)) {
      this.add(
        offset,
        `the alias *${name} is inside the value it refers to (a cycle); write the value out`,
      );
      return NULL;
    }
    const got = this.#done.get(target) ?? NULL;
    if (depth + got.depth > MAX_DEPTH) {
      this.add(
        offset,
        `the alias *${name} nests its value deeper than ${MAX_DEPTH} levels; flatten the config`,
      );
      return NULL;
    }
    if (this.#bombed) return NULL;
    this.#aliasValues += got.size;
    if (this.#aliasValues > MAX_ALIAS_VALUES) {
      this.#bombed = true;
      this.add(
        offset,
        `aliases expand to more than ${MAX_ALIAS_VALUES} values by this one (*${name}), an alias bomb; ` +
          "reuse less, or write the values out",
      );
      return NULL;
    }
    return got;
  }

  #seq(node: YAMLSeq, depth: number, start: number): Converted {
    const value: unknown[] = [];
    let size = 1, deepest = 0;
    node.items.forEach((item, i) => {
      this.#path.push(i);
      const c = this.convert(item as Node | null, depth, start);
      this.#path.pop();
      value.push(c.value);
      size += c.size;
      deepest = Math.max(deepest, c.depth);
    });
    return { value, size, depth: deepest + 1 };
  }

  #map(node: YAMLMap, depth: number, start: number): Converted {
    const value: Record<string, unknown> = {};
    const seen = new Map<string, Node>();
    let size = 1, deepest = 0;
    for (const pair of node.items as Pair<Node | null, Node | null>[]) {
      const keyAt = pair.key?.range?.[0] ?? pair.value?.range?.[0] ?? start;
      let key = this.#key(pair.key, depth, keyAt);
      if (key !== undefined) {
        const first = seen.get(key);
        if (first) {
          this.#duplicate(key, first, pair.key!, keyAt);
          key = undefined; // the first one is kept
        } else seen.set(key, pair.key!);
      }
      this.#path.push(key ?? "?");
      const c = this.convert(pair.value, depth, keyAt);
      this.#path.pop();
      if (key !== undefined) setKey(value, key, c.value);
      size += c.size;
      deepest = Math.max(deepest, c.depth);
    }
    return { value, size, depth: deepest + 1 };
  }

  /** The key as a string, or undefined (reported) when it is not a usable key. */
  #key(node: Node | null, depth: number, at: number): string | undefined {
    if (!node) {
      this.add(at, `a key must be a non-empty string (got nothing)`);
      return undefined;
    }
    if (isAlias(node)) {
      this.add(at, `a key may not be an alias (*${quote(node.source)}); write the key out`);
      return undefined;
    }
    if (!isScalar(node)) {
      this.add(at, `a key must be a string, not a ${isSeq(node) ? "list" : "mapping"}`);
      return undefined;
    }
    if (node.type === "PLAIN" && !node.tag && node.value === "<<") {
      this.add(
        at,
        'merge keys (<<) are not supported; write the keys out (quote "<<" for a literal key)',
      );
      return undefined;
    }
    const { value } = this.convert(node, depth, at);
    if (value === null || value === "") {
      this.add(at, `a key must be a non-empty string (got ${value === null ? "null" : '""'})`);
      return undefined;
    }
    return String(value);
  }

  #duplicate(key: string, first: Node, second: Node, at: number): void {
    const source = (n: Node) => quote(this.text.slice(n.range![0], n.range![1]).trim());
    const { line, col } = this.pos(first.range![0]);
    const [a, b] = [source(first), source(second)];
    const which = a === b
      ? `${b} is already a key at line ${line}, col ${col}`
      : `${b} and ${a} (at line ${line}, col ${col}) are both the key "${quote(key)}"`;
    this.add(at, `YAML syntax: map keys must be unique: ${which}; keep one`, { path: false });
  }
}

/** Converts `contents` (of `file`, whose text is `text`) into plain data, or problems. */
export function toPlainData(
  contents: Node | null,
  opts: {
    file: string;
    text: string;
    pos: (offset: number) => Position;
    /** Where the tag of the node starting at `offset` is written. */
    tagAt: (offset: number) => number;
  },
): DataResult {
  const walker = new Walker(opts.file, opts.text, opts.pos, opts.tagAt);
  const { value } = walker.convert(contents, 0, 0);
  return {
    data: contents ? value : undefined,
    problems: walker.problems,
    aliasTargets: walker.aliasTargets,
  };
}
