/**
 * Who acted, and whether they may (case 46). The actor is the comment's author for comments, the
 * review's author for reviews, and `sender` for issue and pull request events; CI events
 * (`workflow_run`, `check_run`, `check_suite`, `status`) carry status, not instructions, so they
 * have no actor and pass. Logins compare case-insensitively; an empty allowlist lets no human
 * through (fail closed). A close (`issues` or `pull_request` with `action: closed`) skips the
 * check so cleanup still happens — it can close a session, never spawn one.
 *
 * @module
 */

/** The CI event names: no actor, always allowed. */
export const CI_EVENTS: ReadonlySet<string> = new Set([
  "workflow_run",
  "check_run",
  "check_suite",
  "status",
]);

function login(value: unknown): string | null {
  const l = (value as { login?: unknown } | null | undefined)?.login;
  return typeof l === "string" && l !== "" ? l : null;
}

function field(payload: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = payload[key];
  return typeof v === "object" && v !== null ? v as Record<string, unknown> : {};
}

/** The login responsible for the event; `null` for CI events or when the payload names nobody. */
export function actorOf(ghEvent: string, payload: Record<string, unknown>): string | null {
  if (CI_EVENTS.has(ghEvent)) return null;
  if (ghEvent === "issue_comment" || ghEvent === "pull_request_review_comment") {
    return login(field(payload, "comment").user);
  }
  if (ghEvent === "pull_request_review") return login(field(payload, "review").user);
  return login(payload.sender);
}

/** An `issues` or `pull_request` close: bypasses authorization, never spawns. */
export function isLifecycleClose(ghEvent: string, action: string): boolean {
  return (ghEvent === "issues" || ghEvent === "pull_request") && action === "closed";
}

/** A login as the allowlist compares it: no leading `@`, trimmed, lower case. */
export function normalizeLogin(login: string): string {
  return login.replace(/^@/, "").trim().toLowerCase();
}

/**
 * Whether the event may be acted on: CI events always; human events only when the actor is named
 * and in `authorizedUsers` (case-insensitive; a leading `@` in the list is ignored).
 */
export function isAuthorized(
  ghEvent: string,
  actor: string | null,
  authorizedUsers: readonly string[],
): boolean {
  if (CI_EVENTS.has(ghEvent)) return true;
  if (!actor) return false;
  const who = actor.toLowerCase();
  return authorizedUsers.some((u) => normalizeLogin(u) === who);
}
