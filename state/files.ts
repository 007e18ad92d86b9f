import { dirname } from "node:path";

/**
 * Small file-system questions asked in several places.
 *
 * @module
 */

/**
 * Is there anything at `path` (a file, a directory, or a link, even a dangling one)? Other
 * errors (a permission denied on the way) are thrown, not taken for "no".
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Runs `step`, which creates `path`; when the parent folder is missing, creates it (and its
 * parents) and runs `step` again. The folder is made only when needed: one system call less on
 * every write to a folder that exists.
 */
export async function inFolder<T>(path: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    Deno.mkdirSync(dirname(path), { recursive: true });
    return await step();
  }
}
