/**
 * Who acted, and whether they may. The actor is who did what the event
 * reports: the comment's or review's author when it was written (`created`, `submitted`), and
 * `sender` for everything else — an edit, a deletion or a dismissal of a comment or review is the
 * sender's act, not the author's, and so are issue and pull request events. A comment or review
 * event also names its text's author; both must be authorized, so an edit by a stranger is
 * dropped, and so is an allowlisted person's edit of a stranger's words. CI events
 * (`workflow_run`, `check_run`, `check_suite`, `status`) carry status, not instructions, so they
 * have no actor and pass. Logins compare case-insensitively; an empty allowlist lets no human
 * through (fail closed). A close (`issues` or `pull_request` with `action: closed`) skips the
 * check so cleanup still happens — it can close a session, never spawn one. A bot (a login
 * ending in `[bot]`, or a user object of `type: "Bot"`) is authorized only through
 * `routing.authorizedBots`: listing it in `authorizedUsers` does not let it through.
 *
 * ```ts
 * actorsOf("issue_comment", { action: "edited", comment: { user: { login: "alice" } }, sender: { login: "bob" } });
 * // { actor: "bob", author: "alice" }
 * ```
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

/** A login as GitHub spells a bot's (`name[bot]`). */
export function isBotLogin(login: string): boolean {
  return /\[bot\]$/i.test(login.trim());
}

/** A user object that is a bot: its login ends in `[bot]`, or its `type` is `Bot`. */
function isBotUser(value: unknown): boolean {
  const u = value as { login?: unknown; type?: unknown } | null | undefined;
  return u?.type === "Bot" || (typeof u?.login === "string" && isBotLogin(u.login));
}

function login(value: unknown): string | null {
  const l = (value as { login?: unknown } | null | undefined)?.login;
  return typeof l === "string" && l !== "" ? l : null;
}

function field(payload: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = payload[key];
  return typeof v === "object" && v !== null ? v as Record<string, unknown> : {};
}

/** Who acted on an event, and who wrote its text. */
export interface Actors {
  /** Who acted: what is authorized, and what a session is recorded as. `null` for CI events. */
  actor: string | null;
  /** The comment's or review's author (comment and review events), else `null`. */
  author: string | null;
  /** The actor is a bot (`[bot]` login or `type: "Bot"`); absent: not one. */
  actorIsBot?: boolean;
  /** The author is a bot; absent: not one. */
  authorIsBot?: boolean;
}

/** The events that carry a comment's or review's text, written by its author. */
const TEXT_EVENTS: ReadonlySet<string> = new Set([
  "issue_comment",
  "pull_request_review",
  "pull_request_review_comment",
]);

/** The actions by which a comment's or review's author wrote it: they are the actor. */
const WRITTEN = new Set(["created", "submitted"]);

/** The text's author's user object (the comment's or review's `user`); `undefined` without text. */
function authorOf(ghEvent: string, payload: Record<string, unknown>): unknown {
  if (!TEXT_EVENTS.has(ghEvent)) return undefined;
  return field(payload, ghEvent === "pull_request_review" ? "review" : "comment").user ?? null;
}

/** `a` with the bot flags that are true (absent ones are not bots). */
function flagged(a: Actors, actor: unknown, author: unknown): Actors {
  if (isBotUser(actor)) a.actorIsBot = true;
  if (author !== undefined && isBotUser(author)) a.authorIsBot = true;
  return a;
}

/**
 * Who acted and who wrote the text. The author acted when the event reports the writing
 * (`created`, `submitted`); any other action on a comment or review (`edited`, `deleted`,
 * `dismissed`) is the sender's. `null` where the payload names nobody.
 */
export function actorsOf(ghEvent: string, payload: Record<string, unknown>): Actors {
  if (CI_EVENTS.has(ghEvent)) return { actor: null, author: null };
  const author = authorOf(ghEvent, payload);
  if (author === undefined) {
    return flagged({ actor: login(payload.sender), author: null }, payload.sender, undefined);
  }
  const action = typeof payload.action === "string" ? payload.action : "";
  const actor = WRITTEN.has(action) ? author : payload.sender;
  return flagged({ actor: login(actor), author: login(author) }, actor, author);
}

/** An `issues` or `pull_request` close: bypasses authorization, never spawns. */
export function isLifecycleClose(ghEvent: string, action: string): boolean {
  return (ghEvent === "issues" || ghEvent === "pull_request") && action === "closed";
}

/** A login as the allowlist compares it: no leading `@`, trimmed, lower case. */
export function normalizeLogin(login: string): string {
  return login.replace(/^@/, "").trim().toLowerCase();
}

/** A bot's login as `authorizedBots` compares it: normalized, without its `[bot]` suffix. */
function botName(login: string): string {
  return normalizeLogin(login).replace(/\[bot\]$/, "");
}

/** Options of {@linkcode isAuthorized}. */
export interface AuthorizeOptions {
  /** `routing.authorizedBots`: the bots acted on (`name[bot]`, or `name`). Default: none. */
  authorizedBots?: readonly string[];
  /** The actor is a bot (`type: "Bot"`); default: told by its login (`[bot]` suffix). */
  isBot?: boolean;
}

/**
 * Whether the event may be acted on: CI events always; human events only when the actor is named
 * and in `authorizedUsers` (case-insensitive; a leading `@` in the list is ignored); a bot only
 * when it is in `authorizedBots` (never through `authorizedUsers`).
 */
export function isAuthorized(
  ghEvent: string,
  actor: string | null,
  authorizedUsers: readonly string[],
  opts: AuthorizeOptions = {},
): boolean {
  if (CI_EVENTS.has(ghEvent)) return true;
  if (!actor) return false;
  if (opts.isBot || isBotLogin(actor)) {
    const bot = botName(actor);
    return (opts.authorizedBots ?? []).some((b) => botName(b) === bot);
  }
  const who = actor.toLowerCase();
  return authorizedUsers.some((u) => normalizeLogin(u) === who);
}

/**
 * Whether everyone behind the event may be acted on: the actor, and for a comment or review event
 * its text's author too (an edit of a stranger's words by an allowlisted person still carries
 * the stranger's words).
 */
export function areAuthorized(
  ghEvent: string,
  actors: Actors,
  authorizedUsers: readonly string[],
  authorizedBots: readonly string[] = [],
): boolean {
  const isBot = actors.actorIsBot;
  if (!isAuthorized(ghEvent, actors.actor, authorizedUsers, { authorizedBots, isBot })) {
    return false;
  }
  if (!TEXT_EVENTS.has(ghEvent)) return true;
  return isAuthorized(ghEvent, actors.author, authorizedUsers, {
    authorizedBots,
    isBot: actors.authorIsBot,
  });
}
