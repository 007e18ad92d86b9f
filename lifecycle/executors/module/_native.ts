/**
 * The native load path for a module hook in a worker: no esbuild. The hook's files, the SDK and
 * the worker runtime become `blob:` modules of plain JavaScript — their types blanked out by
 * Deno's own `stripTypeScriptTypes` (`node:module`), which keeps every line and column, so no
 * source map is needed and the worker compiles nothing — each module specifier replaced by a
 * blob URL made here, so the worker's module graph holds nothing but them. The specifiers are
 * found in the stripped text, the very text the worker runs (`_native_scan.ts`), and each must
 * name a file the bundler would allow (`_resolve.ts`, the same rules). Anything else — a refused
 * import, a file the scan is unsure of, syntax stripping cannot erase (an enum), a cycle —
 * returns `undefined` and the caller bundles the hook with esbuild, as before, which then reports
 * any problem with `file:line:col`. A hook whose graph does not link in the worker (a syntax
 * error, a type imported without `type`) is likewise loaded again through esbuild
 * (`NativeLoadFailed`); the hook's wrapper module imports a marker first, which tells the host
 * the graph linked, so a hook whose own code ran is never loaded twice. The wrapper then
 * answers the host's init in the very task that evaluated the hook (`hookLoaded`), as the
 * bundle does, before anything its top level scheduled can run.
 *
 * Stack traces name the blob URLs; the host and the runtime rewrite them to the files they
 * stand for (`names`), so errors still read `file:///…/hook.ts:LINE:COL`.
 *
 * @module
 */
import { stripTypeScriptTypes } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath as fromFileUrl, pathToFileURL } from "node:url";
import { messageOf } from "../../../errors.ts";
import { SDK_ENTRY, SDK_SOURCES } from "../../sdk/sources.ts";
import {
  confine,
  type HookRoot,
  hookRoot,
  inSdkDir,
  refusalReason,
  resolveSpecifier,
  SDK_DIR,
  SDK_SPECIFIER,
} from "./_resolve.ts";
import { RUNTIME_SOURCES } from "./_runtime_sources.ts";
import { scanSpecifiers, type Specifier } from "./_native_scan.ts";
import { sdkSubset } from "./_native_sdk.ts";
import { type BlobUrls, EMPTY_MODULE, trustedBlobs } from "./_native_trusted.ts";

const RUNTIME_DIR = dirname(fromFileUrl(import.meta.url));
/** What the entry, the wrapper and the marker are called in stack traces (hidden with the runtime's). */
const ENTRY_NAME = "file:///the-loop-hook-entry.js";
/** At most this many files of the hook's own are loaded natively. */
const MAX_FILES = 64;

/** A hook ready to start natively in a worker. */
export interface NativeHook {
  /** The worker's entry module: installs the runtime, then imports the hook lazily. */
  code: string;
  /** Blob URL → the file URL it stands for, for stack traces. */
  names: [string, string][];
  /** Every blob URL made for it: revoked when the hook closes. */
  urls: string[];
  /** The hook's own files. */
  files: string[];
}

/** A native load that failed before the hook's code ran: load it through esbuild instead. */
export class NativeLoadFailed extends Error {
  /** The runtime itself did not load (so no hook will): set for the process. */
  readonly runtime: boolean;
  constructor(message: string, opts: { runtime: boolean }) {
    super(message);
    this.name = "NativeLoadFailed";
    this.runtime = opts.runtime;
  }
}

let offReason: string | undefined;

/** Turns the native path off for this process (the runtime would not load natively). */
export function disableNative(why: string): void {
  offReason ??= why;
}

class NotNative extends Error {}

const blobOf = (text: string, type: string) =>
  URL.createObjectURL(new Blob([text], { type: `application/${type}` }));

const fileUrl = (path: string) => pathToFileURL(path).href;

/** Walks the hook's files depth first, making each a blob once its imports are. */
class Walk {
  readonly made: string[] = [];
  readonly names: [string, string][] = [];
  readonly files = new Map<string, string>();
  readonly visiting = new Set<string>();
  readonly root: HookRoot;
  readonly runtime: BlobUrls;
  readonly marker: string;
  sdk?: BlobUrls;

  constructor(path: string) {
    this.root = hookRoot(path);
    this.runtime = trustedBlobs(RUNTIME_SOURCES, this.made);
    for (const [name, url] of Object.entries(this.runtime)) {
      this.names.push([url, fileUrl(`${RUNTIME_DIR}/${name}`)]);
    }
    const rt = this.runtime["_runtime.ts"];
    this.marker = this.blob(`import { linked } from "${rt}";\nlinked();\n`, "javascript");
    this.names.push([this.marker, ENTRY_NAME]);
  }

  blob(text: string, type: string): string {
    const url = blobOf(text, type);
    this.made.push(url);
    return url;
  }

  sdkUrl(name: string): string {
    if (!this.sdk) {
      this.sdk = trustedBlobs(SDK_SOURCES, this.made);
      for (const [n, url] of Object.entries(this.sdk)) {
        this.names.push([url, fileUrl(`${SDK_DIR}/${n}`)]);
      }
    }
    if (!Object.hasOwn(this.sdk, name)) throw new NotNative(`no embedded SDK file ${name}`);
    return this.sdk[name];
  }

  /** The SDK's entry, or a module of just the `names` imported from it (`_native_sdk.ts`). */
  sdkEntry(names: string[] | undefined): string {
    const entry = this.sdkUrl(SDK_ENTRY);
    const subset = names && sdkSubset(names, (file) => this.sdkUrl(file));
    if (!subset) return entry;
    const url = this.blob(subset, "javascript");
    this.names.push([url, fileUrl(`${SDK_DIR}/${SDK_ENTRY}`)]);
    return url;
  }

  /** The blob URL of the hook file at `path` (checked by the caller), made with its imports. */
  async file(path: string, real: string): Promise<string> {
    const done = this.files.get(path);
    if (done) return done;
    if (this.visiting.has(path)) throw new NotNative(`an import cycle through ${path}`);
    if (this.visiting.size + this.files.size >= MAX_FILES) throw new NotNative("many files");
    const ts = /\.m?ts$/.test(path);
    if (!ts && !/\.m?js$/.test(path)) throw new NotNative(`${path}: not a .ts or .js file`);
    this.visiting.add(path);
    let text: string;
    try {
      text = await Deno.readTextFile(real);
      // types blanked out, every position kept: errors need no source map
      if (ts) text = stripTypeScriptTypes(text);
    } catch (err) {
      throw new NotNative(`${path}: ${messageOf(err).split("\n")[0]}`);
    }
    const scan = scanSpecifiers(text);
    if ("unsure" in scan) throw new NotNative(`${path}: ${scan.unsure}`);
    let out = text;
    for (const s of [...scan.specifiers].reverse()) {
      const url = s.typeOnly ? EMPTY_MODULE : await this.target(s, path);
      out = `${out.slice(0, s.start)}"${url}"${out.slice(s.end)}`;
    }
    const url = this.blob(out, "javascript");
    this.visiting.delete(path);
    this.files.set(path, url);
    this.names.push([url, fileUrl(path)]);
    return url;
  }

  /** The blob URL an import of `specifier` from the file `importer` is pointed at. */
  target({ specifier, names }: Specifier, importer: string): Promise<string> | string {
    if (specifier === SDK_SPECIFIER) return this.sdkEntry(names);
    const why = refusalReason(specifier);
    if (why) throw new NotNative(`import "${specifier}" refused`);
    const path = resolveSpecifier(specifier, importer);
    if (inSdkDir(path)) return this.sdkUrl(path.slice(SDK_DIR.length + 1));
    const where = confine(path, this.root);
    if ("refused" in where) throw new NotNative(`import "${specifier}" refused`);
    return this.file(path, where.real);
  }

  release(): void {
    for (const url of this.made) URL.revokeObjectURL(url);
  }
}

/**
 * Prepares the hook at absolute `path` for a native load, or returns `undefined` (with the
 * reason in `why`, for tests) when it must be bundled with esbuild instead.
 */
export async function nativeHook(
  path: string,
  why: { reason?: string } = {},
): Promise<NativeHook | undefined> {
  if (offReason) {
    why.reason = offReason;
    return undefined;
  }
  let walk: Walk | undefined;
  try {
    if (!Deno.statSync(path).isFile) throw new NotNative(`${path} is not a file`);
    walk = new Walk(path);
    const hook = await walk.file(path, path);
    const rt = walk.runtime["_runtime.ts"];
    // the marker first (it runs once the graph linked, before any of the hook's code), then the
    // hook, then the init is answered in the task that evaluated it
    const wrapper = walk.blob(
      `import "${walk.marker}";\nimport * as hook from "${hook}";\n` +
        `import { hookLoaded } from "${rt}";\nhookLoaded(hook);\n`,
      "javascript",
    );
    walk.names.push([wrapper, ENTRY_NAME]);
    const code = `import { start } from "${rt}";\nstart(() => import("${wrapper}"));\n`;
    return { code, names: walk.names, urls: walk.made, files: [...walk.files.keys()] };
  } catch (err) {
    walk?.release();
    why.reason = messageOf(err);
    return undefined;
  }
}
