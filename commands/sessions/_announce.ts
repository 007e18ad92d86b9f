/**
 * The CLI verbs' paper trail: the same keyword a comment would carry, posted on the
 * work item as the-loop's own (self-marked, so no daemon acts on it) with who issued it. It runs
 * after the local action and never undoes it: no token, or GitHub failing, warns on stderr and
 * logs `control.announce_failed`.
 *
 * @module
 */
import type { LoadedConfig } from "../../config/mod.ts";
import { messageOf } from "../../errors.ts";
import type { EventSink } from "../../events/mod.ts";
import { GitHubClient, resolveTokenFromConfig } from "../../github/mod.ts";
import type { ControlCommand } from "../../state/control.ts";
import { repoOf, type WorkItemRef } from "../../state/work_item.ts";
import { type CliContext, println } from "../context.ts";

/** What {@linkcode announce} posts, and where it reports. */
export interface AnnounceOptions {
  ctx: CliContext;
  loaded: LoadedConfig;
  item: WorkItemRef;
  command: ControlCommand;
  actor: string;
  events: EventSink;
}

/** The keyword a command is posted as: the configured one, else the default spelling. */
function keywordOf(loaded: LoadedConfig, command: ControlCommand): string {
  const configured = loaded.config.webhooks.ghWebhook.routing.control.keywords[command] ?? "";
  return configured.trim() || `the-loop:${command}-execution`;
}

/** The comment's text (before the self-marker `createComment` adds). */
function announcement(keyword: string, actor: string): string {
  return `\`${keyword}\`\n\nIssued from the-loop CLI by \`${actor.replaceAll("`", "'")}\`.`;
}

/** Posts the paper trail; resolves whether or not it could be posted. */
export async function announce(o: AnnounceOptions): Promise<void> {
  const { config } = o.loaded;
  const keyword = keywordOf(o.loaded, o.command);
  const who = { work_item: o.item.ref, command: o.command, actor: o.actor };
  try {
    const { token } = await resolveTokenFromConfig(config, o.ctx.env);
    const github = new GitHubClient({ apiUrl: config.github.apiUrl, token, events: o.events });
    const comment = await github.createComment(
      repoOf(o.item),
      o.item.number,
      announcement(keyword, o.actor),
    );
    o.events.emit("control.announced", { ...who, comment_url: comment.html_url });
    println(o.ctx, `posted ${keyword} on ${comment.html_url}`);
  } catch (error) {
    const message = messageOf(error);
    o.events.emit("control.announce_failed", { ...who, error: message });
    o.ctx.warn(
      `warning: could not post ${keyword} on ${o.item.ref}: ${message}; ` +
        `the ${o.command} stands (--no-comment skips the comment)\n`,
    );
  }
}
