/**
 * The routing policy from the CLI config, and the warnings a daemon prints at startup (and on a
 * reload) about it: an empty allowlist fails closed; a bot listed in `authorizedUsers` is not
 * authorized by it (only `authorizedBots` authorizes a bot); an event filter without `issues` or
 * `pull_request` means closed items never close their sessions.
 *
 * @module
 */
import type { CliConfig } from "../config/mod.ts";
import { isBotLogin } from "./actor.ts";
import type { RoutingPolicy } from "./types.ts";

/** The event filter when `webhooks.ghWebhook.events` is empty (the schema's default). */
export const DEFAULT_EVENTS: readonly string[] = [
  "issues",
  "issue_comment",
  "pull_request",
  "pull_request_review",
  "pull_request_review_comment",
  "workflow_run",
  "check_run",
  "check_suite",
  "status",
];

/** The event filter a policy means: its list, or the default set when the list is empty. */
export function eventFilter(policy: RoutingPolicy): readonly string[] {
  return policy.events.length > 0 ? policy.events : DEFAULT_EVENTS;
}

/** The routing policy of a config (`webhooks.ghWebhook.events` and `.routing`). */
export function policyFromConfig(config: CliConfig): RoutingPolicy {
  const hook = config.webhooks.ghWebhook;
  return {
    events: hook.events.length > 0 ? [...hook.events] : [...DEFAULT_EVENTS],
    authorizedUsers: [...hook.routing.authorizedUsers],
    authorizedBots: [...hook.routing.authorizedBots],
    autoExecuteLabel: hook.routing.autoExecuteLabel,
  };
}

/** What a daemon should warn about at startup: one sentence each, empty when all is well. */
export function policyWarnings(policy: RoutingPolicy): string[] {
  const out: string[] = [];
  if (policy.authorizedUsers.every((u) => u.replace(/^@/, "").trim() === "")) {
    out.push(
      "webhooks.ghWebhook.routing.authorizedUsers is empty: routing fails closed — every " +
        "comment, review and label event is dropped as unauthorized-actor (closes and CI events " +
        "still pass); list the GitHub logins allowed to steer the-loop",
    );
  }
  for (const login of botsAmongUsers(policy.authorizedUsers)) {
    out.push(`webhooks.ghWebhook.routing.authorizedUsers: ${botInUsersWarning(login)}`);
  }
  const events = eventFilter(policy);
  const missing = ["issues", "pull_request"].filter((e) => !events.includes(e));
  if (missing.length > 0) {
    out.push(
      `webhooks.ghWebhook.events leaves out ${missing.join(" and ")}: closing or merging a work ` +
        "item will not close its session, and labelling will not arm it; add them back to the list",
    );
  }
  return out;
}

/** The logins of `authorizedUsers` that are bots (a `[bot]` suffix): they authorize nothing. */
export function botsAmongUsers(authorizedUsers: readonly string[]): string[] {
  return authorizedUsers.filter(isBotLogin);
}

/** What is said of a bot listed in `authorizedUsers` (`config validate`, a daemon's start). */
export function botInUsersWarning(login: string): string {
  return `${login} is a bot; bots are authorized only through routing.authorizedBots`;
}
