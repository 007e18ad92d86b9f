/**
 * Where a path really leads, for "a grant names real paths": every symlink in it resolved the
 * way the OS resolves it when the path is opened, including a dangling link (a write through
 * it creates its target) and a tail that does not exist yet (a file about to be created).
 * Host side: runs with the-loop's permissions, never inside a hook's worker.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, parse, relative, sep } from "node:path";

/** Symlinks followed in one path before giving up (Linux's own limit). */
const MAX_LINKS = 40;

/** Is the absolute, normalized `path` the absolute, normalized `root` or inside it? */
export function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** Options for {@linkcode realTarget}. */
export interface RealTargetOptions {
  /**
   * Follow a symlink in the last component (`true`: read, write, stat, open…); `false` for
   * what acts on a link itself (lstat, readLink, remove, rename): its parent's real path plus
   * its name.
   */
  follow: boolean;
}

/**
 * The real path the absolute, lexically normalized `abs` leads to (see the module doc).
 * Throws when the links loop or nest deeper than the OS would follow.
 */
export function realTarget(abs: string, opts: RealTargetOptions): string {
  if (!opts.follow) {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realTarget(parent, { follow: true }), basename(abs));
  }
  try {
    return Deno.realPathSync(abs);
  } catch { /* missing, a dangling link, or not searchable: walk it */ }
  return walk(abs);
}

function parts(path: string): string[] {
  return path.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");
}

/** Resolves `abs` one component at a time; what does not exist is kept as written. */
function walk(abs: string): string {
  let real = parse(abs).root;
  const rest = parts(abs.slice(real.length));
  let links = 0;
  while (rest.length > 0) {
    const name = rest.shift()!;
    if (name === "..") {
      real = dirname(real); // `real` holds no link: `..` is its parent
      continue;
    }
    const next = join(real, name);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch {
      return join(next, ...rest); // does not exist (yet): the rest as written
    }
    if (!info.isSymlink) {
      real = next;
      continue;
    }
    if (++links > MAX_LINKS) throw new Error(`too many levels of symbolic links at ${next}`);
    const target = Deno.readLinkSync(next);
    if (isAbsolute(target)) real = parse(target).root;
    rest.unshift(...parts(isAbsolute(target) ? target.slice(real.length) : target));
  }
  return real;
}
