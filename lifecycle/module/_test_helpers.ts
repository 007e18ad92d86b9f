/**
 * Shared bits of this folder's tests.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { Executor } from "../executor.ts";
import { loadModuleHook, type ModuleHookOptions } from "./mod.ts";

/** Absolute path of a fixture in `testdata/`. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./testdata/${name}`, import.meta.url));
}

/** Loads `testdata/<file>` as a hook named after it; extra options override. */
export function loadFixture(
  file: string,
  opts: Partial<ModuleHookOptions> = {},
): Promise<Executor> {
  return loadModuleHook({
    name: file.replace(/\.ts$/, "").replaceAll("_", "-"),
    path: fixture(file),
    baseDir: fixture("."),
    ...opts,
  });
}

/** A test that starts workers/esbuild: their ops outlive a single test by design. */
export const relaxed = { sanitizeOps: false, sanitizeResources: false };
