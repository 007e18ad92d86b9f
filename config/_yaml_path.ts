/**
 * Key paths and positions in a config file, and how a key path is written in problems.
 *
 * @module
 */

/** A key path: map keys and sequence indexes, e.g. `["hooks", 1, "on", 0]`. */
export type KeyPath = (string | number)[];

/** A 1-based source position. */
export interface Position {
  line: number;
  col: number;
}

/** `hooks[1].on[0]`-style rendering of a key path. */
export function formatKeyPath(path: KeyPath): string {
  return path.map((seg, i) => typeof seg === "number" ? `[${seg}]` : i === 0 ? seg : `.${seg}`)
    .join("");
}
