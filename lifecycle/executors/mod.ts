/**
 * The three kinds of executor, as the engine reaches them. Remote and command executors are
 * small and imported as they are; the module executor (esbuild-wasm, workers, the hook host) is
 * loaded on first use, so a command that never loads a module hook — `the-loop --version`,
 * `hooks`, `events` — never compiles esbuild's wasm.
 *
 * @module
 */
import type { Executor } from "../executor.ts";
import type { HookBundle, ModuleHookOptions } from "./module/mod.ts";

export type { HookBundle, ModuleHookOptions } from "./module/mod.ts";
export {
  createRemoteExecutor,
  type RemoteExecutor,
  type RemoteExecutorOptions,
} from "./remote/mod.ts";
export {
  type CommandExecutor,
  type CommandExecutorOptions,
  createCommandExecutor,
} from "./command/mod.ts";

type ModuleKind = typeof import("./module/mod.ts");
let moduleKind: ModuleKind | undefined;

async function moduleExecutors(): Promise<ModuleKind> {
  return moduleKind ??= await import("./module/mod.ts");
}

/** Bundles, starts and loads one module hook (worker or `isolation: process`). */
export async function loadModuleHook(opts: ModuleHookOptions): Promise<Executor> {
  return (await moduleExecutors()).loadModuleHook(opts);
}

/** Bundles a module hook's file and its relative imports in memory. */
export async function bundleHook(path: string): Promise<HookBundle> {
  return (await moduleExecutors()).bundleHook(path);
}

/** Stops the bundler (esbuild keeps the event loop alive); nothing to do if it never ran. */
export async function stopBundler(): Promise<void> {
  if (moduleKind) await moduleKind.stopBundler();
}

/** Runs this process as a module hook's host child (`the-loop __hook-host`). */
export async function runHookHost(): Promise<void> {
  await (await import("./module/hook_host.ts")).main();
}
