/**
 * Where a work item's checkout lives and what its branch is called.
 *
 * ```
 * <root>/.cache/<host>/<owner>/<repo>.git   one bare clone per repository, fetched on later spawns
 * <root>/<host>/<owner>/<repo>/<number>     one worktree per work item
 * ```
 *
 * Issue and pull-request numbers share one sequence per repository, so the number alone names a
 * work item's folder. Branches: `the-loop/issue-<n>` for an issue (from the default branch),
 * `the-loop/pr-<n>` for a pull request (from its head, `refs/pull/<n>/head`).
 *
 * @module
 */
import { join } from "node:path";
import type { WorkItemRef } from "../../state/work_item.ts";

/** The bare clone of the item's repository. */
export function cacheDir(root: string, item: WorkItemRef): string {
  return join(root, ".cache", item.host, item.owner, `${item.repo}.git`);
}

/** The item's worktree. */
export function worktreeDir(root: string, item: WorkItemRef): string {
  return join(root, item.host, item.owner, item.repo, String(item.number));
}

/** The branch of an issue's worktree. */
export function issueBranch(number: number): string {
  return `the-loop/issue-${number}`;
}

/** The branch of a pull request's worktree. */
export function pullBranch(number: number): string {
  return `the-loop/pr-${number}`;
}

/** The remote-tracking ref a pull request's head is fetched into. */
export function pullRef(number: number): string {
  return `refs/remotes/origin/pr/${number}/head`;
}
