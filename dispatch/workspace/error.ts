/**
 * The one error a workspace operation throws: which step failed, for which work item, git's own
 * words (token redacted) and what to do about it.
 *
 * @module
 */

/** The steps a workspace operation takes. */
export type WorkspaceStep = "clone" | "fetch" | "worktree" | "status" | "remove";

/** A workspace operation failed. The message is safe to log: it never holds a token. */
export class WorkspaceError extends Error {
  override name = "WorkspaceError";
  /** The step that failed. */
  readonly step: WorkspaceStep;

  constructor(step: WorkspaceStep, message: string) {
    super(message);
    this.step = step;
  }
}
