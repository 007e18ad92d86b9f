/**
 * Bundles a hook's `.ts` file and its relative imports, in memory, with esbuild-wasm, behind
 * the worker runtime. Only relative files and the SDK resolve; every other import is refused
 * with `file:line:col`. Results are cached per file (invalidated when any bundled file's mtime
 * changes).
 *
 * @module
 */
import * as esbuild from "esbuild-wasm/esm/browser.js";
import wasm from "./_esbuild_wasm.js";
import { dirname, isAbsolute } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { HookLoadError } from "./_errors.ts";
import { inSdkDir, loaderFor, refusalReason, resolveSpecifier, sdkSource } from "./_resolve.ts";
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

let ready: Promise<void> | undefined;
const cache = new Map<string, { bundle: HookBundle; mtimes: number[] }>();

function init(): Promise<void> {
  return ready ??= esbuild.initialize({ wasmModule: wasm, worker: false }).catch((err) => {
    ready = undefined;
    throw err;
  });
}

/**
 * Stops esbuild, which otherwise keeps the event loop alive for a while after a build; call it
 * in one-shot commands. A later {@linkcode bundleHook} starts it again.
 */
export async function stopBundler(): Promise<void> {
  const was = ready;
  if (!was) return;
  ready = undefined;
  try {
    await was;
  } catch {
    return;
  }
  await esbuild.stop();
}

function mtimes(files: string[]): number[] | undefined {
  try {
    return files.map((f) => Deno.statSync(f).mtime?.getTime() ?? 0);
  } catch {
    return undefined;
  }
}

function resolverPlugin(hookPath: string, files: Set<string>): esbuild.Plugin {
  return {
    name: "the-loop-hook-resolver",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.importer === ENTRY_NAME || args.importer === "<stdin>") {
          return { path: args.path === HOOK ? hookPath : RUNTIME_ENTRY, namespace: "file" };
        }
        const why = refusalReason(args.path);
        if (why) return { errors: [{ text: `import "${args.path}" refused: ${why}` }] };
        const path = resolveSpecifier(args.path, args.importer);
        return { path, namespace: "file", pluginData: { fromSdk: inSdkDir(args.importer) } };
      });
      build.onLoad({ filter: /.*/ }, async (args) => {
        const embedded = sdkSource(args.path) ??
          (dirname(args.path) === RUNTIME_DIR
            ? RUNTIME_SOURCES[args.path.slice(RUNTIME_DIR.length + 1)]
            : undefined);
        const loader = loaderFor(args.path);
        if (!loader) {
          return {
            errors: [{
              text:
                `cannot import ${args.path}: only .ts, .tsx, .js, .jsx, .mjs and .json files can be imported`,
            }],
          };
        }
        if (embedded !== undefined) return { contents: embedded, loader };
        if (args.pluginData?.fromSdk) {
          return {
            errors: [{
              text: `the embedded SDK lacks ${args.path}; add it to lifecycle/_sdk_sources.ts`,
            }],
          };
        }
        try {
          const contents = await Deno.readTextFile(args.path);
          files.add(args.path);
          return { contents, loader };
        } catch (err) {
          return { errors: [{ text: `cannot read ${args.path}: ${(err as Error).message}` }] };
        }
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
  if (!isAbsolute(path)) throw new HookLoadError(`hook path must be absolute (got ${path})`);
  const hit = cache.get(path);
  if (hit && mtimes(hit.bundle.files)?.every((m, i) => m === hit.mtimes[i])) return hit.bundle;
  try {
    if (!Deno.statSync(path).isFile) throw new Error("not a file");
  } catch (err) {
    throw new HookLoadError(`cannot read hook file ${path}: ${(err as Error).message}`);
  }
  await init();
  const files = new Set<string>();
  let result: esbuild.BuildResult<{ write: false }>;
  try {
    result = await esbuild.build({
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
      sourcemap: "inline",
      sourceRoot: "file:///",
      sourcesContent: false,
      absWorkingDir: "/",
      keepNames: true,
      logLevel: "silent",
      plugins: [resolverPlugin(path, files)],
    });
  } catch (err) {
    const errors = (err as { errors?: esbuild.Message[] }).errors;
    if (!errors?.length) throw err;
    throw new HookLoadError(formatMessages(errors));
  }
  const bundle = { path, code: result.outputFiles[0].text, files: [...files] };
  const stamp = mtimes(bundle.files);
  if (stamp) cache.set(path, { bundle, mtimes: stamp });
  return bundle;
}
