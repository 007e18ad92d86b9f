/**
 * Per-work-item checkouts: {@linkcode GitWorkspaces} keeps one bare clone per
 * repository under `<root>/.cache/` and gives each work item a `git worktree` on its own branch.
 * The token reaches git by environment only. See `docs/workspaces.md`.
 *
 * @module
 */
export { GitWorkspaces, type GitWorkspacesOptions } from "./workspaces.ts";
export { denoGit, type DenoGitOptions, type GitCall, type GitResult, type GitRun } from "./git.ts";
export { WorkspaceError, type WorkspaceStep } from "./error.ts";
export { cacheDir, issueBranch, pullBranch, pullRef, worktreeDir } from "./layout.ts";
