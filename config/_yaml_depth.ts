/**
 * The checks that run on the parser's token tree, before anything recursive touches the
 * document: `yaml`'s composer recurses once per level and, past about a thousand levels, fails
 * with "maximum call stack size exceeded" at a place that varies from run to run. The same walk
 * notes where each tag is written, so a refused tag is pointed at, not the value after it.
 *
 * @module
 */
import type { CST } from "yaml";

/** What the token walk found. */
export interface TokenScan {
  /** The first (in the file) mapping or list nested more than `max` levels deep. */
  tooDeep?: CST.Token;
  /** Offsets of every tag written, ascending. */
  tags: number[];
}

type Item = CST.CollectionItem;

/** Walks `tokens` iteratively (any depth of input is safe) up to `max` levels of nesting. */
export function scanTokens(tokens: readonly CST.Token[], max: number): TokenScan {
  let tooDeep: CST.Token | undefined;
  const tags: number[] = [];
  const noteTags = (list: readonly CST.SourceToken[] | undefined) => {
    for (const t of list ?? []) if (t.type === "tag") tags.push(t.offset);
  };
  const stack: [CST.Token, number][] = tokens.map((t) => [t, 0]);
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    if (token.type === "document") {
      noteTags(token.start);
      if (token.value) stack.push([token.value, depth]);
    } else if (token.type === "block-scalar") {
      noteTags(token.props as CST.SourceToken[]);
    } else if (
      token.type === "block-map" || token.type === "block-seq" || token.type === "flow-collection"
    ) {
      if (depth + 1 > max) {
        if (!tooDeep || token.offset < tooDeep.offset) tooDeep = token;
        continue; // what is inside is deeper still; this one is where it starts
      }
      for (const item of token.items as Item[]) {
        noteTags(item.start);
        noteTags(item.sep);
        if (item.key) stack.push([item.key, depth + 1]);
        if (item.value) stack.push([item.value, depth + 1]);
      }
    }
  }
  return { tooDeep, tags: tags.sort((a, b) => a - b) };
}

/** The offset of the last tag written before `offset` (binary search), else `offset`. */
export function tagBefore(tags: readonly number[], offset: number): number {
  let lo = 0, hi = tags.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tags[mid] < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? tags[lo - 1] : offset;
}
