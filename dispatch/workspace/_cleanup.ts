/**
 * Removing a work item's worktree at closure, never one holding uncommitted work: `git status
 * --porcelain` must be empty (untracked files count; ignored files do not). The branch stays in
 * the cache, so committed work survives the worktree.
 *
 * @module
 */
import { exists } from "../../state/files.ts";
import type { Ops } from "./_ops.ts";

/** What a cleanup did. */
export interface CleanupResult {
  removed: boolean;
  /** Why the worktree was kept. */
  kept?: string;
  /** How many paths `git status` listed (when kept). */
  files?: number;
}

/** Removes the worktree at `path` when it is clean; a missing one is nothing to do. */
export async function cleanupWorktree(
  ops: Ops,
  cache: string,
  path: string,
): Promise<CleanupResult> {
  if (!(await exists(path))) return { removed: false };
  const status = await ops.must({
    step: "status",
    args: ["-C", path, "status", "--porcelain=v1", "--untracked-files=all"],
    hint: `Inspect ${path} by hand; it was left in place.`,
  });
  const files = status.split("\n").filter((line) => line.trim()).length; // one line per path
  if (files > 0) {
    return { removed: false, kept: `uncommitted changes: ${files} files`, files };
  }
  await ops.must({
    step: "remove",
    args: ["-C", cache, "worktree", "remove", path],
    hint: `Inspect ${path} by hand (is it locked? \`git worktree unlock\`); it was left in place.`,
  });
  return { removed: true };
}
