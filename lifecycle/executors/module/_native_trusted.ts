/**
 * The worker runtime's and the SDK's embedded sources as `blob:` modules for the native load
 * path (`_native.ts`). Their types are stripped once per process with Deno's own
 * `stripTypeScriptTypes` (`node:module`, native, under a millisecond a file), which blanks types
 * out so every line and column stays where it was: a worker then loads plain JavaScript, with no
 * compiler and no source map (a file that uses syntax stripping cannot erase is served as
 * TypeScript instead, for Deno to compile in the worker). Their relative imports are rewritten,
 * for each hook, to the blob URLs of the files they name (a type-only import to an empty module:
 * nothing loads it at run time). These are the-loop's own files, formatted by `deno fmt` (every
 * declaration starts its line), so a pattern finds their imports; a test checks that none is
 * left behind.
 *
 * @module
 */
import { stripTypeScriptTypes } from "node:module";

/** A module that exports nothing: what a type-only import is pointed at. */
export const EMPTY_MODULE = "data:application/javascript,export%20%7B%7D%3B";

/** `import`/`export … from "./x.ts"` at the start of a line (`type` captured). */
const RELATIVE = /^((?:import|export)(\s+type\b)?[^;]*?\bfrom\s*|import\s*)"(\.\/[\w.-]+\.ts)"/gm;

/** Does `text` still hold a relative import the pattern above would have missed? */
export function leftRelative(text: string): boolean {
  return /\b(?:from|import)\s*["']\.\.?\//.test(text);
}

/** One embedded file, ready to be a module: its text and media type. */
export interface TrustedModule {
  text: string;
  type: "javascript" | "typescript";
}

const prepared = new Map<Readonly<Record<string, string>>, Record<string, TrustedModule>>();

/** `sources` with their types stripped (computed once per process and kept). */
export function strippedSources(
  sources: Readonly<Record<string, string>>,
): Record<string, TrustedModule> {
  let done = prepared.get(sources);
  if (done) return done;
  done = {};
  for (const [name, text] of Object.entries(sources)) {
    try {
      done[name] = { text: stripTypeScriptTypes(text), type: "javascript" };
    } catch {
      done[name] = { text, type: "typescript" }; // an enum, a namespace…: Deno compiles it
    }
  }
  prepared.set(sources, done);
  return done;
}

/** Blob modules made for one hook: name → URL. */
export type BlobUrls = Record<string, string>;

/**
 * Makes a blob module of each of `sources` (name → TypeScript text), its imports of the others
 * rewritten to their URLs; each URL made is pushed on `made` (to be revoked). Throws on an
 * import it cannot serve or a cycle of value imports.
 */
export function trustedBlobs(sources: Readonly<Record<string, string>>, made: string[]): BlobUrls {
  const modules = strippedSources(sources);
  const urls: BlobUrls = {};
  const visiting = new Set<string>();
  const visit = (name: string): string => {
    if (Object.hasOwn(urls, name)) return urls[name];
    if (!Object.hasOwn(modules, name)) throw new Error(`no embedded source for ${name}`);
    if (visiting.has(name)) throw new Error(`a cycle of value imports through ${name}`);
    visiting.add(name);
    const { text, type } = modules[name];
    const out = text.replace(RELATIVE, (_m, head: string, typeOnly, spec: string) => {
      return `${head}"${typeOnly ? EMPTY_MODULE : visit(spec.slice(2))}"`;
    });
    if (leftRelative(out)) throw new Error(`${name}: a relative import was not rewritten`);
    const url = URL.createObjectURL(new Blob([out], { type: `application/${type}` }));
    made.push(url);
    return urls[name] = url;
  };
  for (const name of Object.keys(modules)) visit(name);
  return urls;
}
