/**
 * The fake GitHub's world: repositories with issues, pull requests, comments, reviews, review
 * comments, labels, reactions and collaborators, as GitHub's REST API shapes them. Helpers change
 * it the way GitHub would (bumping `updated_at` and the `comments` count).
 *
 * Times have GitHub's one-second resolution and come from `clock` (tests may set it).
 *
 * @module
 */

import { type Change, type Json, snapshot } from "./changes.ts";

export type { Json } from "./changes.ts";

export interface User {
  login: string;
  id: number;
  node_id: string;
  type: "User" | "Bot";
  html_url: string;
}

export interface PullExtra {
  head: { ref: string; sha: string };
  base: { ref: string };
  merged: boolean;
  merged_at: string | null;
  closingIssues: { repo: string; number: number }[];
  reviews: Json[];
  reviewComments: Json[];
}

export interface Item {
  issue: Json; // the issue payload (a PR's has `pull_request`)
  comments: Json[];
  reactions: Json[];
  pull?: PullExtra;
}

export interface Repo {
  full_name: string;
  payload: Json;
  items: Map<number, Item>;
  collaborators: Map<string, string>; // login → permission
  nextNumber: number;
}

/** Options of {@linkcode World.addIssue} and {@linkcode World.addPull}. */
export interface NewItem {
  title?: string;
  body?: string;
  user?: string;
  labels?: string[];
}

const b64 = (s: string) => btoa(s).replace(/=+$/, "");

export type { Change } from "./changes.ts";

export class World {
  readonly host: string;
  readonly repos = new Map<string, Repo>();
  readonly users = new Map<string, User>();
  /** Milliseconds since the epoch; tests may move it. */
  clock: () => number = Date.now;
  /**
   * The webhook delivery each change would make, oldest first (see `changes.ts`);
   * `FakeGitHub.deliver` sends the ones not yet sent.
   */
  readonly changes: Change[] = [];
  /** The `sender` of changes made without a user (labels, close, reopen); default octocat. */
  sender = "octocat";
  #nextId = 1000;
  readonly #listeners = new Set<(change: Change) => void>();

  /** Calls `listener` after each change from now on; returns its removal. */
  onChange(listener: (change: Change) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #push(change: Change): void {
    this.changes.push(change);
    for (const l of this.#listeners) l(change);
  }

  constructor(host = "https://github.com") {
    this.host = host;
  }

  /** Now, at GitHub's one-second resolution: `2026-01-02T03:04:05Z`. */
  now(): string {
    return new Date(Math.floor(this.clock() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  }

  id(): number {
    return this.#nextId++;
  }

  user(login: string): User {
    let u = this.users.get(login);
    if (!u) {
      const id = this.id();
      u = {
        login,
        id,
        node_id: `U_${b64(String(id))}`,
        type: login.endsWith("[bot]") ? "Bot" : "User",
        html_url: `${this.host}/${login}`,
      };
      this.users.set(login, u);
    }
    return u;
  }

  addRepo(fullName: string): Repo {
    const existing = this.repos.get(fullName);
    if (existing) return existing;
    const [owner, name] = fullName.split("/");
    const id = this.id();
    const repo: Repo = {
      full_name: fullName,
      payload: {
        id,
        node_id: `R_${b64(String(id))}`,
        name,
        full_name: fullName,
        owner: this.user(owner),
        private: false,
        html_url: `${this.host}/${fullName}`,
      },
      items: new Map(),
      collaborators: new Map(),
      nextNumber: 1,
    };
    this.repos.set(fullName, repo);
    return repo;
  }

  repo(fullName: string): Repo {
    const r = this.repos.get(fullName);
    if (!r) throw new Error(`fake GitHub: no repository ${fullName}`);
    return r;
  }

  item(fullName: string, number: number): Item {
    const it = this.repo(fullName).items.get(number);
    if (!it) throw new Error(`fake GitHub: no item ${fullName}#${number}`);
    return it;
  }

  label(name: string): Json {
    const id = this.id();
    return { id, node_id: `LA_${b64(String(id))}`, name, color: "ededed", default: false };
  }

  #newIssue(repo: Repo, opts: NewItem, kind: "issues" | "pull"): Item {
    const number = repo.nextNumber++;
    const id = this.id();
    const t = this.now();
    const api = `/repos/${repo.full_name}/issues/${number}`;
    const issue: Json = {
      id,
      node_id: `${kind === "pull" ? "PR" : "I"}_${b64(String(id))}`,
      number,
      title: opts.title ?? `item ${number}`,
      body: opts.body ?? "",
      state: "open",
      state_reason: null,
      locked: false,
      user: this.user(opts.user ?? "octocat"),
      labels: (opts.labels ?? []).map((l) => this.label(l)),
      assignees: [],
      comments: 0,
      author_association: "OWNER",
      created_at: t,
      updated_at: t,
      closed_at: null,
      url: api,
      repository_url: `/repos/${repo.full_name}`,
      comments_url: `${api}/comments`,
      html_url: `${this.host}/${repo.full_name}/${kind}/${number}`,
    };
    const item: Item = { issue, comments: [], reactions: [] };
    repo.items.set(number, item);
    return item;
  }

  /** A new open issue. */
  addIssue(fullName: string, opts: NewItem = {}): Json {
    const item = this.#newIssue(this.addRepo(fullName), opts, "issues");
    this.#record(fullName, item, "opened", opts.user ?? "octocat");
    return item.issue;
  }

  /** A new open pull request (an issue with `pull_request`). */
  addPull(
    fullName: string,
    opts: NewItem & { head?: string; closes?: { repo?: string; number: number }[] } = {},
  ): Json {
    const repo = this.addRepo(fullName);
    const item = this.#newIssue(repo, opts, "pull");
    const n = item.issue.number;
    item.issue.pull_request = {
      url: `/repos/${fullName}/pulls/${n}`,
      html_url: `${this.host}/${fullName}/pull/${n}`,
      diff_url: `${this.host}/${fullName}/pull/${n}.diff`,
      patch_url: `${this.host}/${fullName}/pull/${n}.patch`,
      merged_at: null,
    };
    item.pull = {
      head: { ref: opts.head ?? `branch-${n}`, sha: crypto.randomUUID().replaceAll("-", "") },
      base: { ref: "main" },
      merged: false,
      merged_at: null,
      closingIssues: (opts.closes ?? []).map((c) => ({
        repo: c.repo ?? fullName,
        number: c.number,
      })),
      reviews: [],
      reviewComments: [],
    };
    this.#record(fullName, item, "opened", opts.user ?? "octocat");
    return item.issue;
  }

  /** Appends the delivery a change makes (`issues` or `pull_request`, by the item's kind). */
  #record(fullName: string, item: Item, action: string, sender: string, extra: Json = {}): void {
    const base = {
      action,
      ...extra,
      repository: this.repo(fullName).payload,
      sender: this.user(sender),
    };
    const payload = item.pull
      ? {
        ...base,
        number: item.issue.number,
        pull_request: this.pullPayload(fullName, item.issue.number),
      }
      : { ...base, issue: item.issue };
    this.#push({
      event: item.pull ? "pull_request" : "issues",
      action,
      payload: snapshot(payload),
    });
  }

  /** Appends a delivery of `event` with `payload` (repository and sender added). */
  #recordOther(
    fullName: string,
    event: string,
    action: string,
    sender: string,
    payload: Json,
  ): void {
    this.#push({
      event,
      action,
      payload: snapshot({
        action,
        ...payload,
        repository: this.repo(fullName).payload,
        sender: this.user(sender),
      }),
    });
  }

  #touch(item: Item): void {
    item.issue.updated_at = this.now();
  }

  /** A conversation comment; bumps the item's `comments` and `updated_at`. */
  addComment(fullName: string, number: number, body: string, user = "octocat"): Json {
    const item = this.item(fullName, number);
    const id = this.id();
    const t = this.now();
    const comment = {
      id,
      node_id: `IC_${b64(String(id))}`,
      url: `/repos/${fullName}/issues/comments/${id}`,
      html_url: `${item.issue.html_url}#issuecomment-${id}`,
      issue_url: item.issue.url,
      body,
      user: this.user(user),
      author_association: "NONE",
      created_at: t,
      updated_at: t,
    };
    item.comments.push(comment);
    item.issue.comments = item.comments.length;
    this.#touch(item);
    this.#recordOther(fullName, "issue_comment", "created", user, { issue: item.issue, comment });
    return comment;
  }

  /** A submitted review (state COMMENTED by default); bumps `updated_at`. */
  addReview(
    fullName: string,
    number: number,
    opts: { body?: string; state?: string; user?: string } = {},
  ): Json {
    const item = this.item(fullName, number);
    if (!item.pull) throw new Error(`fake GitHub: ${fullName}#${number} is not a pull request`);
    const id = this.id();
    const review = {
      id,
      node_id: `PRR_${b64(String(id))}`,
      user: this.user(opts.user ?? "octocat"),
      body: opts.body ?? "",
      state: opts.state ?? "COMMENTED",
      html_url: `${item.issue.pull_request.html_url}#pullrequestreview-${id}`,
      pull_request_url: item.issue.pull_request.url,
      author_association: "NONE",
      submitted_at: opts.state === "PENDING" ? undefined : this.now(),
      commit_id: item.pull.head.sha,
    };
    item.pull.reviews.push(review);
    this.#touch(item);
    if (review.state !== "PENDING") {
      this.#recordOther(fullName, "pull_request_review", "submitted", review.user.login, {
        review,
        pull_request: this.pullPayload(fullName, number),
      });
    }
    return review;
  }

  /** An inline review comment at `path:line`; bumps `updated_at`. */
  addReviewComment(
    fullName: string,
    number: number,
    opts: { body: string; path: string; line: number; user?: string; reviewId?: number },
  ): Json {
    const item = this.item(fullName, number);
    if (!item.pull) throw new Error(`fake GitHub: ${fullName}#${number} is not a pull request`);
    const id = this.id();
    const t = this.now();
    const comment = {
      id,
      node_id: `PRRC_${b64(String(id))}`,
      pull_request_review_id: opts.reviewId ?? null,
      path: opts.path,
      line: opts.line,
      original_line: opts.line,
      side: "RIGHT",
      diff_hunk: "@@ -1 +1 @@",
      body: opts.body,
      user: this.user(opts.user ?? "octocat"),
      html_url: `${item.issue.pull_request.html_url}#discussion_r${id}`,
      pull_request_url: item.issue.pull_request.url,
      author_association: "NONE",
      commit_id: item.pull.head.sha,
      created_at: t,
      updated_at: t,
    };
    item.pull.reviewComments.push(comment);
    this.#touch(item);
    this.#recordOther(fullName, "pull_request_review_comment", "created", comment.user.login, {
      comment,
      pull_request: this.pullPayload(fullName, number),
    });
    return comment;
  }

  /**
   * `editor` edits a conversation comment, an inline review comment or a review (found by node
   * id) to say `body`: bumps its `updated_at` (not a review's: REST has none) and the item's, and
   * records the `edited` delivery (`sender` the editor, `changes.body.from` the old body).
   */
  editComment(fullName: string, nodeId: string, body: string, editor: string): Json {
    for (const item of this.repo(fullName).items.values()) {
      const kinds: [string, Json[]][] = [
        ["issue_comment", item.comments],
        ["pull_request_review", item.pull?.reviews ?? []],
        ["pull_request_review_comment", item.pull?.reviewComments ?? []],
      ];
      for (const [event, list] of kinds) {
        const entry = list.find((c) => c.node_id === nodeId);
        if (!entry) continue;
        const from = entry.body;
        entry.body = body;
        entry.__editor = editor;
        if (event !== "pull_request_review") entry.updated_at = this.now();
        this.#touch(item);
        const key = event === "pull_request_review" ? "review" : "comment";
        const where = event === "issue_comment"
          ? { issue: item.issue }
          : { pull_request: this.pullPayload(fullName, item.issue.number) };
        this.#recordOther(fullName, event, "edited", editor, {
          [key]: entry,
          ...where,
          changes: { body: { from } },
        });
        return entry;
      }
    }
    throw new Error(`fake GitHub: no comment ${nodeId} in ${fullName}`);
  }

  /** Who last edited the comment or review with `nodeId` (`null`: nobody, or no such node). */
  editorOf(nodeId: string): string | null {
    for (const repo of this.repos.values()) {
      for (const item of repo.items.values()) {
        const all = [
          ...item.comments,
          ...(item.pull?.reviews ?? []),
          ...(item.pull?.reviewComments ?? []),
        ];
        const entry = all.find((c) => c.node_id === nodeId);
        if (entry) return entry.__editor ?? null;
      }
    }
    return null;
  }

  /** Adds labels (existing ones are kept once); bumps `updated_at` when one was new. */
  addLabels(fullName: string, number: number, names: string[]): Json[] {
    const item = this.item(fullName, number);
    let changed = false;
    for (const name of names) {
      if (item.issue.labels.some((l: Json) => l.name === name)) continue;
      const label = this.label(name);
      item.issue.labels.push(label);
      changed = true;
      this.#touch(item);
      this.#record(fullName, item, "labeled", this.sender, { label });
    }
    if (changed) this.#touch(item);
    return item.issue.labels;
  }

  /** Removes a label; false when the item did not carry it. */
  removeLabel(fullName: string, number: number, name: string): boolean {
    const item = this.item(fullName, number);
    const label = item.issue.labels.find((l: Json) => l.name === name);
    item.issue.labels = item.issue.labels.filter((l: Json) => l.name !== name);
    if (!label) return false;
    this.#touch(item);
    this.#record(fullName, item, "unlabeled", this.sender, { label });
    return true;
  }

  /**
   * Closes an item (`merged: true` merges a pull request); `by` who did it (default
   * {@linkcode World.sender}).
   */
  close(fullName: string, number: number, opts: { merged?: boolean; by?: string } = {}): void {
    const item = this.item(fullName, number);
    const t = this.now();
    const by = opts.by ?? this.sender;
    item.issue.state = "closed";
    item.issue.state_reason = "completed";
    item.issue.closed_at = t;
    item.issue.closed_by = this.user(by);
    if (item.pull && opts.merged) {
      item.pull.merged = true;
      item.pull.merged_at = t;
      item.issue.pull_request.merged_at = t;
    }
    this.#touch(item);
    this.#record(fullName, item, "closed", by);
  }

  /** Reopens an item; `by` who did it (default {@linkcode World.sender}). */
  reopen(fullName: string, number: number, opts: { by?: string } = {}): void {
    const item = this.item(fullName, number);
    item.issue.state = "open";
    item.issue.state_reason = "reopened";
    item.issue.closed_at = null;
    this.#touch(item);
    this.#record(fullName, item, "reopened", opts.by ?? this.sender);
  }

  /** Gives `login` a permission (`admin`, `write`, `read`, …) on a repository. */
  setPermission(fullName: string, login: string, permission: string): void {
    this.user(login);
    this.addRepo(fullName).collaborators.set(login, permission);
  }

  /** A reaction on an issue/PR or a comment; returns it and whether it is new. */
  react(
    subject: Item | Json,
    content: string,
    login: string,
  ): { reaction: Json; created: boolean } {
    const list: Json[] = "reactions" in subject && "issue" in subject
      ? subject.reactions
      : (subject.__reactions ??= []);
    const old = list.find((r) => r.content === content && r.user.login === login);
    if (old) return { reaction: old, created: false };
    const id = this.id();
    const reaction = {
      id,
      node_id: `REA_${b64(String(id))}`,
      user: this.user(login),
      content,
      created_at: this.now(),
    };
    list.push(reaction);
    return { reaction, created: true };
  }

  /** The reactions on a comment payload (or an item). */
  reactionsOf(subject: Item | Json): Json[] {
    return ("reactions" in subject && "issue" in subject
      ? subject.reactions
      : subject.__reactions) ??
      [];
  }

  /** The pull request payload GitHub's `/pulls/{n}` serves. */
  pullPayload(fullName: string, number: number): Json {
    const item = this.item(fullName, number);
    if (!item.pull) return undefined;
    const i = item.issue;
    return {
      id: i.id,
      node_id: i.node_id,
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      locked: false,
      user: i.user,
      labels: i.labels,
      html_url: i.pull_request.html_url,
      url: i.pull_request.url,
      head: { ...item.pull.head, repo: this.repo(fullName).payload },
      base: { ...item.pull.base, repo: this.repo(fullName).payload },
      merged: item.pull.merged,
      merged_at: item.pull.merged_at,
      draft: false,
      created_at: i.created_at,
      updated_at: i.updated_at,
      closed_at: i.closed_at,
      comments: i.comments,
      review_comments: item.pull.reviewComments.length,
    };
  }
}

/** A copy of a payload without the fake's private keys (`__…`). */
export function publicView(value: Json): Json {
  return JSON.parse(JSON.stringify(value, (k, v) => (k.startsWith("__") ? undefined : v)));
}
