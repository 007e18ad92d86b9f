/**
 * The events the poller hands the router, shaped exactly like the webhook deliveries GitHub would
 * send for the same thing, so both ingress paths leave the same trail.
 *
 * @module
 */
import type {
  GitHubComment,
  GitHubIssue,
  GitHubPull,
  GitHubReview,
  GitHubReviewComment,
  IssueRef,
} from "../github/mod.ts";
import type { IngressEvent } from "../ingress/mod.ts";
import type { WorkItemRef } from "../state/work_item.ts";

/** One entry of an item's thread, in the order GitHub shows them. */
export interface ThreadEntry {
  /** conversation comment, submitted review with a body, inline review comment */
  kind: "comment" | "review" | "review_comment";
  /** The GraphQL node id: unique across the three kinds. */
  nodeId: string;
  /** `created_at` (reviews: `submitted_at`). */
  createdAt: string;
  /** `updated_at` (reviews: `submitted_at`): what `since=` filters on. */
  updatedAt: string;
  author: string;
  body: string;
  url: string;
  raw: GitHubComment | GitHubReview | GitHubReviewComment;
}

/** `repository` as a webhook carries it, from the repo name and the item's web URL. */
export function repositoryOf(repo: string, item: WorkItemRef): Record<string, unknown> {
  const [owner, name] = repo.split("/");
  return {
    full_name: repo,
    name,
    owner: { login: owner },
    html_url: `https://${item.host}/${repo}`,
  };
}

/** A pull request payload from what is known: the fetched pull, else the issue and the ledger. */
export function pullPayload(
  issue: GitHubIssue,
  pull: GitHubPull | undefined,
  head: string | undefined,
): Record<string, unknown> {
  if (pull) return pull as unknown as Record<string, unknown>;
  const mergedAt = issue.pull_request?.merged_at ?? null;
  return {
    id: issue.id,
    node_id: issue.node_id,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    html_url: issue.pull_request?.html_url ?? issue.html_url,
    user: issue.user,
    labels: issue.labels,
    head: { ref: head ?? "" },
    merged: mergedAt !== null,
    merged_at: mergedAt,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
  };
}

/** What the payload builders need to know about the item. */
export interface ItemContext {
  repo: string;
  item: WorkItemRef;
  issue: GitHubIssue;
  pull?: GitHubPull;
  head?: string;
  closing?: IssueRef[];
}

/** The delivery id of a thread entry. */
export function commentDeliveryId(nodeId: string): string {
  return `poll-comment-${nodeId}`;
}

/**
 * The webhook-shaped event of one thread entry. Edited by someone else before it was read
 * (`editor`, asked over GraphQL: REST does not say), it is the `edited` delivery GitHub sent
 * last, `sender` the editor, so the router looks at who acted as it does for a webhook.
 */
export function entryEvent(
  ctx: ItemContext,
  entry: ThreadEntry,
  opts: { editor?: string | null } = {},
): IngressEvent {
  const repository = repositoryOf(ctx.repo, ctx.item);
  const deliveryId = commentDeliveryId(entry.nodeId);
  const edited = !!opts.editor && opts.editor !== entry.author;
  const sender = edited ? { login: opts.editor } : (entry.raw as { user: unknown }).user;
  const action = (written: string) => (edited ? "edited" : written);
  const isPull = ctx.issue.pull_request !== undefined;
  const closingIssues = isPull ? ctx.closing ?? [] : undefined;
  if (entry.kind === "comment") {
    return {
      ghEvent: "issue_comment",
      deliveryId,
      via: "poll",
      payload: {
        action: action("created"),
        issue: ctx.issue,
        comment: entry.raw,
        repository,
        sender,
      },
      ...(closingIssues ? { closingIssues } : {}),
    };
  }
  const pull_request = pullPayload(ctx.issue, ctx.pull, ctx.head);
  if (entry.kind === "review") {
    return {
      ghEvent: "pull_request_review",
      deliveryId,
      via: "poll",
      payload: {
        action: action("submitted"),
        review: entry.raw,
        pull_request,
        repository,
        sender,
      },
      closingIssues: closingIssues ?? [],
    };
  }
  const raw = entry.raw as GitHubReviewComment;
  return {
    ghEvent: "pull_request_review_comment",
    deliveryId,
    via: "poll",
    payload: {
      action: action("created"),
      comment: { ...raw, line: raw.line ?? raw.original_line },
      pull_request,
      repository,
      sender,
    },
    closingIssues: closingIssues ?? [],
  };
}

/**
 * An item-level event as its webhook would carry it: `pull_request` for a pull request (its
 * closing issues along), else `issues`.
 */
function itemEvent(
  ctx: ItemContext,
  o: { action: string; deliveryId: string; sender: unknown; pull?: GitHubPull; presence?: true },
): IngressEvent {
  const repository = repositoryOf(ctx.repo, ctx.item);
  const { action, deliveryId, sender } = o;
  const presence = o.presence ? { presence: true } : {};
  if (ctx.issue.pull_request !== undefined) {
    return {
      ghEvent: "pull_request",
      deliveryId,
      via: "poll",
      ...presence,
      payload: {
        action,
        number: ctx.issue.number,
        pull_request: pullPayload(ctx.issue, o.pull, ctx.head),
        repository,
        sender,
      },
      closingIssues: ctx.closing ?? [],
    };
  }
  return {
    ghEvent: "issues",
    deliveryId,
    via: "poll",
    ...presence,
    payload: { action, issue: ctx.issue, repository, sender },
  };
}

/** The presence nudge: "this labelled item is armed and has no session". */
export function presenceEvent(ctx: ItemContext, actor: string): IngressEvent {
  return itemEvent(ctx, {
    action: "presence",
    deliveryId: `poll-presence-${ctx.item.ref}-${crypto.randomUUID()}`,
    sender: { login: actor },
    pull: ctx.pull,
    presence: true,
  });
}

/** The close of an item, as the `closed` webhook would carry it. */
export function closeEvent(ctx: ItemContext, state: "closed" | "merged"): IngressEvent {
  const closedBy = (ctx.issue as { closed_by?: unknown }).closed_by;
  return itemEvent(ctx, {
    action: "closed",
    deliveryId: `poll-close-${ctx.item.ref}-${state}`,
    sender: closedBy ?? ctx.issue.user,
  });
}
