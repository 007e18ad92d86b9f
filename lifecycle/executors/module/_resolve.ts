/**
 * What a hook may import: relative files and the SDK, nothing that would run outside the
 * worker's sandbox. Pure functions, shared by the bundler and its tests.
 *
 * @module
 */
import { dirname, extname, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { SDK_ENTRY, SDK_SOURCES } from "../../sdk/sources.ts";

/** The specifier hook authors import the SDK by. */
export const SDK_SPECIFIER = "@the-loop/hooks";

/** The-loop's own `lifecycle/` folder: where the embedded SDK files pretend to live. */
export const SDK_DIR: string = dirname(fromFileUrl(new URL("../../sdk/mod.ts", import.meta.url)));

/** Why `specifier` may not be imported by a hook, or `undefined` when it may. */
export function refusalReason(specifier: string): string | undefined {
  if (specifier === SDK_SPECIFIER) return undefined;
  if (specifier.startsWith("./") || specifier.startsWith("../")) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(specifier)?.[1]?.toLowerCase();
  switch (scheme) {
    case "npm":
    case "jsr":
      return `${scheme}: packages are installed and run outside the hook's sandbox; ` +
        "copy the code next to the hook and import it with a relative path";
    case "http":
    case "https":
      return "remote modules are fetched with the-loop's permissions, not the hook's; " +
        "copy the code next to the hook and import it with a relative path";
    case "node":
      return "Node built-ins reach into the-loop's process around the hook's sandbox; " +
        "use web APIs (fetch, Deno.readTextFile), which the hook's permissions govern";
    case undefined:
      if (specifier.startsWith("/")) {
        return "absolute paths are not allowed; import the file with a relative path";
      }
      return `bare names have no resolution in a hook; only relative files ("./x.ts") and ` +
        `"${SDK_SPECIFIER}" can be imported`;
    default:
      return `${scheme}: URLs are not allowed; only relative files ("./x.ts") and ` +
        `"${SDK_SPECIFIER}" can be imported`;
  }
}

/** Where an allowed specifier imported from the file `importer` points (an absolute path). */
export function resolveSpecifier(specifier: string, importer: string): string {
  if (specifier === SDK_SPECIFIER) return `${SDK_DIR}/${SDK_ENTRY}`;
  return resolve(dirname(importer), specifier);
}

/** The embedded SDK text for an absolute path inside the-loop's `lifecycle/`, if it is one. */
export function sdkSource(path: string): string | undefined {
  if (dirname(path) !== SDK_DIR) return undefined;
  const name = path.slice(SDK_DIR.length + 1);
  return Object.hasOwn(SDK_SOURCES, name) ? SDK_SOURCES[name] : undefined;
}

/** Is `path` in the-loop's `lifecycle/` folder (served from the embedded SDK, never read)? */
export function inSdkDir(path: string): boolean {
  return dirname(path) === SDK_DIR;
}

const LOADERS: Record<string, "ts" | "tsx" | "js" | "jsx" | "json"> = {
  ".ts": "ts",
  ".mts": "ts",
  ".tsx": "tsx",
  ".js": "js",
  ".mjs": "js",
  ".jsx": "jsx",
  ".json": "json",
};

/** The extensions a hook may import, as a message lists them. */
export const IMPORTABLE = Object.keys(LOADERS).join(", ");

/** The esbuild loader for a hook file, or `undefined` for an extension hooks cannot import. */
export function loaderFor(path: string): "ts" | "tsx" | "js" | "jsx" | "json" | undefined {
  return LOADERS[extname(path).toLowerCase()];
}

/** The directory tree a hook's relative imports must stay in: as written and as resolved. */
export interface HookRoot {
  /** The hook file's directory, as declared. */
  dir: string;
  /** The same with symlinks resolved. */
  real: string;
}

/** The root for the hook at absolute `path` (its directory; realpath when it exists). */
export function hookRoot(path: string): HookRoot {
  const dir = dirname(path);
  let real = dir;
  try {
    real = Deno.realPathSync(dir);
  } catch { /* missing: the bundler reports the hook file itself */ }
  return { dir, real };
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Where the file at `path` (a resolved relative import) really is, or why a hook rooted at
 * `root` may not import it: outside the hook's directory, as written or through a symlink.
 * A missing file resolves to itself (reading it reports the error).
 */
export function confine(path: string, root: HookRoot): { real: string } | { refused: string } {
  const rule = `a hook may import only files in its own directory (${root.dir}) and below`;
  if (!inside(path, root.dir)) return { refused: `it resolves to ${path}; ${rule}` };
  let real: string;
  try {
    real = Deno.realPathSync(path);
  } catch {
    return { real: path };
  }
  if (!inside(real, root.real)) {
    return { refused: `it resolves through a symlink to ${real}; ${rule}` };
  }
  return { real };
}
