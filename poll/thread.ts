/**
 * Reading an item's thread: conversation comments, and for a pull request its submitted reviews
 * with a body and its inline review comments, merged in time order (a review with no body, or still pending, is not a comment). `since=` is used
 * where GitHub takes it, one second before the watermark: `updated_at` has one-second
 * resolution, so a comment in the watermark's own second is never skipped.
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
  RepoName,
} from "../github/mod.ts";
import type { ThreadEntry } from "./payloads.ts";

/** The GitHub reads the poller makes (a subset of `GitHubClient`). */
export interface PollGitHub {
  listIssues(
    repo: RepoName,
    opts: { labels?: string; state?: "open" | "closed" | "all" },
  ): Promise<GitHubIssue[]>;
  getIssue(repo: RepoName, number: number): Promise<GitHubIssue>;
  listIssueComments(
    repo: RepoName,
    number: number,
    opts?: { since?: string },
  ): Promise<GitHubComment[]>;
  getPull(repo: RepoName, number: number): Promise<GitHubPull>;
  listReviews(repo: RepoName, number: number): Promise<GitHubReview[]>;
  listReviewComments(
    repo: RepoName,
    number: number,
    opts?: { since?: string },
  ): Promise<GitHubReviewComment[]>;
  closingIssues(repo: RepoName, number: number): Promise<IssueRef[]>;
  /** Who last edited comments or reviews (by node id), `null` for one nobody edited. */
  commentEditors(nodeIds: readonly string[]): Promise<Map<string, string | null>>;
  createComment(repo: RepoName, number: number, body: string): Promise<GitHubComment>;
}

/** An item's thread as read this cycle. */
export interface Thread {
  entries: ThreadEntry[];
  /** Which stream each entry came by (`comments` or `reviewComments`; reviews have none). */
  stream: Map<string, "comments" | "reviewComments">;
  pull?: GitHubPull;
  closing?: IssueRef[];
}

/** Watermarks to read from (`undefined`: the whole thread). */
export interface ReadFrom {
  comments?: string;
  reviewComments?: string;
}

/** `iso` minus one second, as GitHub writes times. */
export function sinceParam(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return undefined;
  return new Date(t - 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

const KIND_ORDER = { comment: 0, review: 1, review_comment: 2 } as const;

/** GitHub's numeric id of an entry: it grows with creation (node ids are opaque, not ordered). */
function idOf(e: ThreadEntry): number {
  const id = (e.raw as { id?: unknown }).id;
  return typeof id === "number" ? id : Number.MAX_SAFE_INTEGER;
}

/**
 * Merges entries in time order. GitHub's times are whole seconds, and a bot loop writes several
 * comments a second: ties go conversation, review, inline, then by numeric id (creation order),
 * then as listed (the sort is stable, and GitHub lists each kind oldest first).
 */
export function mergeThread(entries: ThreadEntry[]): ThreadEntry[] {
  return entries.sort((a, b) =>
    Date.parse(a.createdAt) - Date.parse(b.createdAt) ||
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    idOf(a) - idOf(b)
  );
}

/** Whether a review carries something to forward: submitted, with a non-empty body. */
export function isForwardableReview(r: GitHubReview): boolean {
  return r.state !== "PENDING" && typeof r.body === "string" && r.body.trim() !== "" &&
    typeof r.submitted_at === "string";
}

/** A conversation or inline comment as a thread entry. */
function commentEntry(
  kind: "comment" | "review_comment",
  c: GitHubComment | GitHubReviewComment,
): ThreadEntry {
  return {
    kind,
    nodeId: c.node_id,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
    author: c.user?.login ?? "",
    body: c.body ?? "",
    url: c.html_url,
    raw: c,
  };
}

/** Reads an item's thread (and, for a pull request, its head and closing issues). */
export async function readThread(
  gh: PollGitHub,
  repo: RepoName,
  issue: GitHubIssue,
  from: ReadFrom,
): Promise<Thread> {
  const n = issue.number;
  const entries: ThreadEntry[] = [];
  const stream = new Map<string, "comments" | "reviewComments">();
  const comments = await gh.listIssueComments(repo, n, { since: sinceParam(from.comments) });
  for (const c of comments) {
    entries.push(commentEntry("comment", c));
    stream.set(c.node_id, "comments");
  }
  if (issue.pull_request === undefined) return { entries: mergeThread(entries), stream };
  const pull = await gh.getPull(repo, n);
  for (const r of await gh.listReviews(repo, n)) {
    if (!isForwardableReview(r)) continue;
    entries.push({
      kind: "review",
      nodeId: r.node_id,
      createdAt: r.submitted_at!,
      updatedAt: r.submitted_at!,
      author: r.user?.login ?? "",
      body: r.body ?? "",
      url: r.html_url,
      raw: r,
    });
  }
  const inline = await gh.listReviewComments(repo, n, {
    since: sinceParam(from.reviewComments),
  });
  for (const c of inline) {
    entries.push(commentEntry("review_comment", c));
    stream.set(c.node_id, "reviewComments");
  }
  const closing = await gh.closingIssues(repo, n);
  return { entries: mergeThread(entries), stream, pull, closing };
}
