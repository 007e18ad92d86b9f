/**
 * A small recursive directory walk for tests (no std library here).
 *
 * @module
 */

/** Options for {@linkcode walk}. */
export interface WalkOptions {
  /** File name ending to keep, e.g. `.ts`. */
  ext: string;
  /** Directory names not to enter. */
  skip: string[];
}

/** Yields the paths of matching files under `dir`. */
export async function* walk(dir: string, opts: WalkOptions): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir.replace(/\/$/, "")}/${entry.name}`;
    if (entry.isDirectory && !opts.skip.includes(entry.name)) yield* walk(path, opts);
    else if (entry.isFile && entry.name.endsWith(opts.ext)) yield path;
  }
}
