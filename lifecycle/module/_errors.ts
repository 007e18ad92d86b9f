/**
 * The error a module hook's load throws.
 *
 * @module
 */

/**
 * A module hook could not be loaded: its file (or one it imports) is missing or invalid, an
 * import is refused, its top level threw, or no executor could be picked from its exports.
 * The message names the hook and, where known, `file:line:col`.
 */
export class HookLoadError extends Error {
  override name = "HookLoadError";
}
