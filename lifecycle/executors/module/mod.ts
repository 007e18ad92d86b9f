/**
 * Local module hooks: a hook's `.ts` file, bundled in memory with its relative imports, run in
 * a permission-sandboxed Web Worker (or, with `isolation: "process"`, in a child the-loop
 * process with a memory budget). See `docs/decisions/0003-esbuild-wasm-hook-bundling.md`. A hook in a
 * worker whose imports can all be read without a parser is loaded natively instead, with no
 * esbuild (`_native.ts`; `docs/decisions/0006-native-hook-loading.md`).
 *
 * @module
 */
import { messageOf } from "../../../errors.ts";
import { DEFAULT_LOAD_TIMEOUT_MS, type Executor, HookLoadError } from "../../executor.ts";
import { type HookAt, loadFailed, onPoints } from "../../_messages.ts";
import { misspeltPoints } from "../../misspelt.ts";
import { isPointName, type PointName } from "../../sdk/points.ts";
import type { HookOptions } from "../_declared.ts";
import { bundleHook } from "./bundler.ts";
import { type Grants, workerPermissions } from "./permissions.ts";
import { startProcessHook } from "./_process_executor.ts";
import { firstLocation } from "./_worker_messages.ts";
import { startWorkerHook, type WorkerHookOptions } from "./_worker_executor.ts";
import { disableNative, nativeHook, NativeLoadFailed } from "./_native.ts";

export { bundleHook, type HookBundle, stopBundler } from "./bundler.ts";
export { DEFAULT_LOAD_TIMEOUT_MS, HookLoadError } from "../../executor.ts";
export { type Grants, PERMISSION_KINDS, type PermissionKind } from "./permissions.ts";
export {
  type HookHostCommand,
  hookHostCommand,
  hookHostEnv,
  type HookHostEnvOptions,
} from "./host_command.ts";

/**
 * What {@linkcode loadModuleHook} needs: one `hooks[]` entry of kind module, resolved. (No
 * `env`: a module reads the environment only as its `permissions.env` grants.)
 */
export interface ModuleHookOptions extends Omit<HookOptions, "env"> {
  /** The hook's `.ts` file, absolute. */
  path: string;
  /** The declaring config file's directory: relative permission paths resolve against it. */
  baseDir: string;
  /** The declaration's `executor`: which export to use. */
  exportName?: string;
  /** The declaration's `with`: handed to the class's constructor. */
  options?: Record<string, unknown>;
  /** What the hook may do; nothing by default. */
  permissions?: Grants;
  /** The points it is called at; each must be handled by the hook. Default: those it handles. */
  on?: PointName[];
  /** `"worker"` (default): a worker in this process; `"process"`: a child process. */
  isolation?: "worker" | "process";
  /** The hook's memory budget (MiB) under `isolation: "process"`; default 128. */
  maxMemoryMb?: number;
  /**
   * How long the hook's top level may take to load (worker or child start, imports, top-level
   * `await`); default {@linkcode DEFAULT_LOAD_TIMEOUT_MS}. Past it the worker is terminated or
   * the child SIGKILLed and the load fails.
   */
  loadTimeoutMs?: number;
}

/**
 * A load failure, named: a {@linkcode HookLoadError} that names the hook already (a load
 * timeout) as it is; the bundler's and the permissions' (which carry their own file:line:col)
 * named; anything else (the hook's top level threw) named at its first `file:line:col`.
 */
function loadError(at: HookAt, path: string, err: unknown): HookLoadError {
  if (err instanceof HookLoadError) {
    return err.hook === at.hook
      ? err
      : new HookLoadError(loadFailed(at, err.message, { code: err.code }));
  }
  const msg = messageOf(err);
  const where = firstLocation(msg) ?? firstLocation(err instanceof Error ? err.stack : undefined) ??
    path;
  return new HookLoadError(loadFailed(at, msg, { where }));
}

/** Narrows an executor to the declaration's `on`, each of which the hook must handle. */
function restrictTo(at: HookAt, exec: Executor, on: PointName[] | undefined): Executor {
  if (!on) return exec;
  const unknown = on.filter((p) => !isPointName(p));
  const unhandled = on.filter((p) => isPointName(p) && !exec.handles(p));
  if (unknown.length || unhandled.length) {
    throw new HookLoadError(onPoints(at, unknown, unhandled, misspeltPoints(exec)));
  }
  return {
    name: exec.name,
    kind: exec.kind,
    handles: (point) => on.includes(point),
    call: (point, params, opts) => exec.call(point, params, opts),
    close: () => exec.close(),
    ...(exec.status ? { status: () => exec.status!() } : {}),
    ...(exec.methods ? { methods: () => exec.methods!() } : {}),
  };
}

/**
 * Starts the hook at `path` in a worker natively (no esbuild), or returns `undefined` when it
 * must be bundled: its files cannot be read natively, or its modules did not link.
 */
async function startNative(
  common: Omit<WorkerHookOptions, "code">,
  path: string,
): Promise<Executor | undefined> {
  const native = await nativeHook(path);
  if (!native) return undefined;
  try {
    return await startWorkerHook({ ...common, code: native.code, native });
  } catch (err) {
    for (const url of native.urls) URL.revokeObjectURL(url);
    if (!(err instanceof NativeLoadFailed)) throw err;
    if (err.runtime) disableNative(err.message);
    return undefined;
  }
}

/**
 * Loads a module hook: prepares its modules natively for a worker (`_native.ts`) or bundles it
 * with esbuild (refusing imports that would leave the sandbox), starts its worker or child
 * process with exactly the granted permissions, and waits (at most
 * `loadTimeoutMs`) for it to load. Throws {@linkcode HookLoadError} naming the hook and, where
 * known, `file:line:col`.
 */
export async function loadModuleHook(opts: ModuleHookOptions): Promise<Executor> {
  const { name, path } = opts;
  const at: HookAt = { hook: name, kind: "module" };
  let exec: Executor;
  try {
    const permissions = workerPermissions(opts.permissions, opts.baseDir);
    const common = {
      name,
      permissions,
      exportName: opts.exportName,
      options: opts.options,
      baseDir: opts.baseDir,
      loadTimeoutMs: opts.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS,
    };
    const bundled = async () => ({ ...common, code: (await bundleHook(path)).code });
    exec = opts.isolation === "process"
      ? await startProcessHook({ ...await bundled(), maxMemoryMb: opts.maxMemoryMb ?? 128 })
      : (await startNative(common, path)) ?? await startWorkerHook(await bundled());
  } catch (err) {
    throw loadError(at, path, err);
  }
  try {
    return restrictTo(at, exec, opts.on);
  } catch (err) {
    await exec.close();
    throw err;
  }
}
