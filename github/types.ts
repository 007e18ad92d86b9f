/**
 * The parts of GitHub's REST payloads the-loop reads. GitHub sends more; these name what code may
 * rely on (the fake GitHub in `demo/fake_github/` sends the same shapes).
 *
 * @module
 */
import type { Reaction } from "../config/types.ts";

/** `OWNER/REPO`. */
export type RepoName = string;

/** A user as GitHub embeds it. */
export interface GitHubUser {
  login: string;
  id: number;
  node_id: string;
  type?: string;
  html_url?: string;
}

/** A label as an issue carries it. */
export interface GitHubLabel {
  id: number;
  node_id: string;
  name: string;
  color?: string;
}

/** An issue, or a pull request seen as an issue (it then has `pull_request`). */
export interface GitHubIssue {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason?: string | null;
  html_url: string;
  user: GitHubUser;
  labels: GitHubLabel[];
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pull_request?: { url: string; html_url: string; merged_at?: string | null };
}

/** A pull request (`GET /repos/{o}/{r}/pulls/{n}`). */
export interface GitHubPull {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  merged: boolean;
  merged_at: string | null;
  html_url: string;
  user: GitHubUser;
  labels: GitHubLabel[];
  head: { ref: string; sha: string };
  base: { ref: string };
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

/** A conversation comment on an issue or pull request. */
export interface GitHubComment {
  id: number;
  node_id: string;
  body: string;
  user: GitHubUser;
  html_url: string;
  created_at: string;
  updated_at: string;
}

/** A pull request review. */
export interface GitHubReview {
  id: number;
  node_id: string;
  body: string | null;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING";
  user: GitHubUser;
  html_url: string;
  submitted_at?: string;
}

/** An inline review comment on a pull request's diff. */
export interface GitHubReviewComment {
  id: number;
  node_id: string;
  pull_request_review_id: number | null;
  body: string;
  path: string;
  line: number | null;
  original_line: number | null;
  user: GitHubUser;
  html_url: string;
  created_at: string;
  updated_at: string;
}

/** The reactions GitHub's REST API takes: the config's palette without "" (skip). */
export type ReactionContent = Exclude<Reaction, "">;

/** What a reaction is put on. */
export type ReactionTarget =
  | { repo: RepoName; issue: number }
  | { repo: RepoName; comment: number }
  | { repo: RepoName; reviewComment: number };

/** An issue a pull request closes (GraphQL `closingIssuesReferences`). */
export interface IssueRef {
  repo: RepoName;
  number: number;
}
