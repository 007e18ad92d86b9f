/**
 * Catalog entries of the workspace events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`):
 * the per-work-item checkouts and harness trust. None of them ever carries the GitHub token; git's
 * output is quoted with it redacted.
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

const ITEM = "string — the work item's ref, e.g. github:owner/repo#12";
const REPO = "string — the repository, OWNER/REPO";
const PATH = "string — the work item's worktree, <root>/<host>/<owner>/<repo>/<number>";

/** The workspace event types. */
export const WORKSPACE_EVENTS: Record<string, EventType> = {
  "workspace.cloned": {
    description: "A repository was cloned into the workspace cache (its first work item).",
    level: "info",
    fields: {
      work_item: ITEM,
      repo: REPO,
      cache: "string — the bare clone, <root>/.cache/<host>/<owner>/<repo>.git",
      ms: "number — how long the clone took",
    },
  },
  "workspace.fetched": {
    description: "The cached clone of a repository was fetched for a new work item's worktree.",
    level: "info",
    fields: { work_item: ITEM, repo: REPO, ms: "number — how long the fetch took" },
  },
  "workspace.worktree_created": {
    description: "A work item got its own worktree, on its own branch.",
    level: "info",
    fields: {
      work_item: ITEM,
      path: PATH,
      branch: "string — the worktree's branch, the-loop/issue-<n> or the-loop/pr-<n>",
      base: "string — what the branch started from (origin/<default>, the PR head, or itself)",
      ms: "number — how long adding the worktree took (the fetch not included)",
    },
  },
  "workspace.removed": {
    description: "A closed work item's clean worktree was removed (its branch stays in the cache).",
    level: "info",
    fields: { work_item: ITEM, path: PATH },
  },
  "workspace.kept": {
    description: "A closed work item's worktree was kept because it holds uncommitted changes.",
    level: "warning",
    fields: {
      work_item: ITEM,
      path: PATH,
      reason: "string — why, e.g. uncommitted changes: 3 files",
      files: "number — how many paths git status listed",
    },
  },
  "workspace.failed": {
    description: "Preparing or cleaning up a work item's checkout failed.",
    level: "error",
    fields: {
      work_item: ITEM,
      repo: REPO,
      step: "string — clone | fetch | worktree | status | remove | io",
      error: "string — what failed (git's words, token redacted) and what to do",
    },
  },
  "workspace.trust_applied": {
    description: "Harness trust keys were written into the harness's own config before a spawn.",
    level: "info",
    fields: {
      harness: "string — claude",
      file: "string — the file written (~/.claude.json, settings.json)",
      keys: 'string[] — what changed, e.g. projects["/w"].hasTrustDialogAccepted',
      scope: "string — workspace-root | directory (the scope in effect)",
      cwd: "string — the spawn directory",
    },
  },
  "workspace.trust_failed": {
    description: "Harness trust could not be written; the spawn goes ahead (the harness may ask).",
    level: "warning",
    fields: {
      harness: "string — claude",
      file: "string — the file that could not be read, parsed or written",
      error: "string — what went wrong and what to do",
    },
  },
  "workspace.trust_degraded": {
    description:
      "The workspace root was not trusted as a whole; only the spawn directory was (warning when the root is too broad, info when it does not contain the spawn directory).",
    level: "warning",
    fields: {
      root: "string — the workspace root not used",
      cwd: "string — the spawn directory trusted instead",
      reason:
        "string — not-containing (the root does not contain the spawn directory) | too-broad (/ or $HOME)",
    },
  },
};
