/**
 * The one file-system question the workspace steps ask.
 *
 * @module
 */

/** Whether `path` exists (a dangling symlink counts); other errors than NotFound throw. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
