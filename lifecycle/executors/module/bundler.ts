/**
 * Bundles a hook's `.ts` file and its relative imports, in memory, with esbuild-wasm, behind
 * the worker runtime. Only the SDK and relative files inside the hook's own directory resolve
 * (symlinks followed); every other import, and any `import()` of a computed specifier, is
 * refused with `file:line:col`. Results are cached per file (invalidated when any bundled file's mtime
 * changes). esbuild (its JavaScript and its ~12 MB wasm) is imported on the first build only: a
 * process whose hooks all load natively (`_native.ts`) never compiles it.
 *
 * @module
 */
import type * as esbuild from "esbuild-wasm/esm/browser.js";
import { dirname, isAbsolute } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { messageOf } from "../../../errors.ts";
import { HookLoadError } from "../../executor.ts";
import { unnamed } from "../../_messages.ts";
import { computedImports } from "./_import_scan.ts";
import {
  confine,
  hookRoot,
  IMPORTABLE,
  inSdkDir,
  loaderFor,
  refusalReason,
  resolveSpecifier,
  sdkSource,
} from "./_resolve.ts";
import { RUNTIME_SOURCES } from "./_runtime_sources.ts";

const RUNTIME_DIR = dirname(fromFileUrl(import.meta.url));
const RUNTIME_ENTRY = `${RUNTIME_DIR}/_runtime.ts`;
const HOOK = "the-loop:hook";
const ENTRY_NAME = "the-loop-hook-entry.js";

/** A hook bundled with the worker runtime: one ES module, inline source map. */
export interface HookBundle {
  /** The hook's absolute path. */
  path: string;
  /** The bundled module's text. */
  code: string;
  /** Every file read from disk for it (the hook and its relative imports). */
  files: string[];
}

/** The embedded text of a worker-runtime file, by absolute path. */
function runtimeSource(path: string): string | undefined {
  if (dirname(path) !== RUNTIME_DIR) return undefined;
  const name = path.slice(RUNTIME_DIR.length + 1);
  return Object.hasOwn(RUNTIME_SOURCES, name) ? RUNTIME_SOURCES[name] : undefined;
}

type Esbuild = typeof esbuild;

let ready: Promise<Esbuild> | undefined;
const cache = new Map<string, { bundle: HookBundle; mtimes: number[] }>();

async function start(): Promise<Esbuild> {
  const [lib, wasm] = await Promise.all([
    import("esbuild-wasm/esm/browser.js"),
    import("./_esbuild_wasm.js"),
  ]);
  await lib.initialize({ wasmModule: wasm.default, worker: false });
  return lib;
}

function init(): Promise<Esbuild> {
  return ready ??= start().catch((err) => {
    ready = undefined;
    throw err;
  });
}

/** Has esbuild been started (and not stopped since)? A hook loaded natively never starts it. */
export function bundlerStarted(): boolean {
  return ready !== undefined;
}

/**
 * Stops esbuild, which otherwise keeps the event loop alive for a while after a build; call it
 * in one-shot commands. A later {@linkcode bundleHook} starts it again.
 */
export async function stopBundler(): Promise<void> {
  const was = ready;
  if (!was) return;
  ready = undefined;
  let lib: Esbuild;
  try {
    lib = await was;
  } catch {
    return;
  }
  await lib.stop();
}

function mtimes(files: string[]): number[] | undefined {
  try {
    return files.map((f) => Deno.statSync(f).mtime?.getTime() ?? 0);
  } catch {
    return undefined;
  }
}

const COMPUTED_IMPORT = "import() with a computed specifier refused: the-loop cannot check " +
  "what it would load; import the file by a literal relative path (a method named import " +
  "reads the same to this check: rename it)";

/** The scan of a hook file for computed `import()`s, as esbuild errors at their location. */
function scanErrors(path: string, contents: string, loader: string): esbuild.PartialMessage[] {
  if (loader === "json") return [];
  const lines = contents.split("\n");
  return computedImports(contents).map(({ line, column }) => ({
    text: COMPUTED_IMPORT,
    location: { file: path, line, column, length: 6, lineText: lines[line - 1] },
  }));
}

/**
 * Resolves and loads a hook's imports, refusing those that would leave its sandbox (counted in
 * `refusals`: the load error is then `refused-import`).
 */
function resolverPlugin(
  hookPath: string,
  files: Set<string>,
  refusals: { count: number },
): esbuild.Plugin {
  const root = hookRoot(hookPath);
  return {
    name: "the-loop-hook-resolver",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.importer === ENTRY_NAME || args.importer === "<stdin>") {
          return { path: args.path === HOOK ? hookPath : RUNTIME_ENTRY, namespace: "file" };
        }
        const refuse = (why: string) => {
          refusals.count++;
          return { errors: [{ text: `import "${args.path}" refused: ${why}` }] };
        };
        const why = refusalReason(args.path);
        if (why) return refuse(why);
        const path = resolveSpecifier(args.path, args.importer);
        const fromSdk = inSdkDir(args.importer);
        const fromRuntime = dirname(args.importer) === RUNTIME_DIR &&
          runtimeSource(path) !== undefined;
        if (fromSdk || fromRuntime || sdkSource(path) !== undefined) {
          return { path, namespace: "file", pluginData: { fromSdk } };
        }
        if (!loaderFor(path)) return refuse(`only ${IMPORTABLE} files can be imported`);
        const where = confine(path, root);
        if ("refused" in where) return refuse(where.refused);
        return { path, namespace: "file", pluginData: { real: where.real } };
      });
      build.onLoad({ filter: /.*/ }, async (args) => {
        const embedded = sdkSource(args.path) ?? runtimeSource(args.path);
        const loader = loaderFor(args.path);
        if (!loader) {
          return { errors: [{ text: `cannot load ${args.path}: only ${IMPORTABLE} files` }] };
        }
        if (embedded !== undefined) return { contents: embedded, loader };
        if (args.pluginData?.fromSdk) {
          return {
            errors: [{
              text: `the embedded SDK lacks ${args.path}; add it to lifecycle/sdk/sources.ts`,
            }],
          };
        }
        let contents: string;
        try {
          contents = await Deno.readTextFile(args.pluginData?.real ?? args.path);
        } catch (err) {
          return { errors: [{ text: `cannot read ${args.path}: ${messageOf(err)}` }] };
        }
        files.add(args.path);
        const errors = scanErrors(args.path, contents, loader);
        refusals.count += errors.length;
        return errors.length ? { errors } : { contents, loader };
      });
    },
  };
}

function formatMessages(errors: esbuild.Message[]): string {
  return errors.map((m) => {
    if (!m.location) return m.text;
    const file = isAbsolute(m.location.file) ? m.location.file : `/${m.location.file}`;
    return `${file}:${m.location.line}:${m.location.column + 1}: ${m.text}`;
  }).join("\n");
}

/**
 * Bundles the hook at absolute `path` (and its relative imports, and the SDK when imported)
 * behind the worker runtime. Throws {@linkcode HookLoadError} with `file:line:col` for a
 * missing file, a syntax error or a refused import.
 */
export async function bundleHook(path: string): Promise<HookBundle> {
  if (!isAbsolute(path)) throw new HookLoadError(unnamed.pathNotAbsolute(path));
  const hit = cache.get(path);
  if (hit && mtimes(hit.bundle.files)?.every((m, i) => m === hit.mtimes[i])) return hit.bundle;
  try {
    if (!Deno.statSync(path).isFile) throw new Error("not a file");
  } catch (err) {
    throw new HookLoadError(unnamed.cannotRead(path, messageOf(err)));
  }
  const lib = await init();
  const files = new Set<string>();
  const refusals = { count: 0 };
  let result: esbuild.BuildResult<{ write: false }>;
  try {
    result = await lib.build({
      stdin: {
        contents: `import { start } from "runtime";\nstart(() => import("${HOOK}"));\n`,
        sourcefile: ENTRY_NAME,
        loader: "js",
      },
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      target: "esnext",
      // no import() survives bundling: a computed one the scan missed becomes a throwing call
      supported: { "dynamic-import": false },
      sourcemap: "inline",
      sourceRoot: "file:///",
      sourcesContent: false,
      absWorkingDir: "/",
      keepNames: true,
      logLevel: "silent",
      plugins: [resolverPlugin(path, files, refusals)],
    });
  } catch (err) {
    const errors = (err as { errors?: esbuild.Message[] }).errors;
    if (!errors?.length) throw err;
    throw new HookLoadError(unnamed.bundle(formatMessages(errors), refusals.count > 0));
  }
  const bundle = { path, code: result.outputFiles[0].text, files: [...files] };
  const stamp = mtimes(bundle.files);
  if (stamp) cache.set(path, { bundle, mtimes: stamp });
  return bundle;
}
