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
