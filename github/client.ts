/**
 * {@linkcode GitHubClient}: the one client every path that talks to GitHub is handed. REST over
 * `fetch`, conditional GETs, `Link` pagination, rate limits waited out, retries, and the writes
 * the-loop makes (comments stamped with the self-marker, reactions, labels); GraphQL only for
 * what REST lacks (a pull request's closing issues).
 *
 * ```ts
 * const { token } = await resolveToken({ tokenEnv: config.github.tokenEnv });
 * const cache = await EtagCache.load(etagCachePath(config.state.root));
 * const gh = new GitHubClient({ apiUrl: config.github.apiUrl, token, cache, events: log });
 * const issues = await gh.listIssues("octo/repo", { labels: "the-loop: auto-execute" });
 * await cache.flush();
 * ```
 *
 * @module
 */
import { EtagCache, etagCachePath } from "./etag_cache.ts";
import { GitHubError } from "./error.ts";
import { nextLink } from "./_link.ts";
import { markSelfAuthored } from "./self_marker.ts";
import {
  type GitHubResponse,
  type GitHubStats,
  type RequestOptions,
  Transport,
  type TransportOptions,
} from "./transport.ts";
import type {
  GitHubComment,
  GitHubIssue,
  GitHubLabel,
  GitHubPull,
  GitHubReview,
  GitHubReviewComment,
  IssueRef,
  ReactionContent,
  ReactionTarget,
  RepoName,
} from "./types.ts";

/** Options for {@linkcode GitHubClient}. */
export type GitHubClientOptions = TransportOptions;

/** Query values. */
export type Query = RequestOptions["query"];

/** Filters of {@linkcode GitHubClient.listIssues}. */
export interface ListIssuesOptions {
  /** Default `open`. */
  state?: "open" | "closed" | "all";
  /** Comma-separated label names; an item must carry all of them. */
  labels?: string;
  /** ISO time: only items updated at or after it. */
  since?: string;
  /** Page size, at most 100; default 100. */
  perPage?: number;
}

const CLOSING_REFS = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      closingIssuesReferences(first: 100) { nodes { number repository { nameWithOwner } } }
    }
  }
}`;

/** Who last edited comments or reviews (`Comment.editor`: "the editor of the comment"). */
const COMMENT_EDITORS = `query($ids: [ID!]!) {
  nodes(ids: $ids) { ... on Comment { id editor { login } } }
}`;

/** `/repos/OWNER/REPO`, each part encoded; throws on a name that is not `OWNER/REPO`. */
function repoPath(repo: RepoName): string {
  const parts = repo.split("/");
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new TypeError(`not a repository name (OWNER/REPO): ${JSON.stringify(repo)}`);
  }
  return `/repos/${encodeURIComponent(parts[0])}/${encodeURIComponent(parts[1])}`;
}

/** The GraphQL endpoint that goes with a REST base URL (GitHub Enterprise: `/api/graphql`). */
export function graphqlUrl(apiUrl: string): string {
  const u = new URL(apiUrl.replace(/\/+$/, ""));
  u.pathname = /\/api\/v3$/.test(u.pathname)
    ? u.pathname.replace(/\/v3$/, "/graphql")
    : `${u.pathname.replace(/\/$/, "")}/graphql`;
  return u.href;
}

/** The client. Methods throw {@linkcode GitHubError}; rate limits are waited out, not thrown. */
export class GitHubClient {
  readonly #t: Transport;
  readonly #graphql: string;

  constructor(opts: GitHubClientOptions) {
    this.#t = new Transport(opts);
    this.#graphql = graphqlUrl(opts.apiUrl);
  }

  /**
   * A client whose ETag cache is loaded from (and flushed to) `<stateRoot>/github-etags.json`.
   */
  static async open(
    opts: Omit<GitHubClientOptions, "cache"> & { stateRoot: string; maxCacheEntries?: number },
  ): Promise<GitHubClient> {
    const cache = await EtagCache.load(etagCachePath(opts.stateRoot), {
      maxEntries: opts.maxCacheEntries,
    });
    return new GitHubClient({ ...opts, cache });
  }

  /** The conditional-request cache. */
  get cache(): EtagCache {
    return this.#t.cache;
  }

  /** Writes the ETag cache file when it changed (call once per cycle and on shutdown). */
  flush(): Promise<void> {
    return this.#t.cache.flush();
  }

  /** Requests made, 304s, retries and rate-limit waits so far. */
  stats(): GitHubStats {
    return this.#t.stats();
  }

  /** The counters since the last call (for one `poll.cycle` event), zeroing them. */
  takeStats(): GitHubStats {
    return this.#t.takeStats();
  }

  /** Any request: `path` is an API path (`/repos/…`) or a URL of the API's own origin. */
  request<T = unknown>(path: string, opts: RequestOptions = {}): Promise<GitHubResponse<T>> {
    return this.#t.request<T>(this.#t.url(path, opts.query), opts);
  }

  /** A conditional GET's body. */
  async get<T = unknown>(path: string, query?: Query): Promise<T> {
    return (await this.request<T>(path, { query })).data;
  }

  /** Every item of a list endpoint, page by page along `Link: rel="next"` (each page conditional). */
  async *paginate<T>(path: string, query?: Query): AsyncGenerator<T, void, undefined> {
    let url: string | undefined = this.#t.url(path, { per_page: 100, ...query }).href;
    const seen = new Set<string>();
    while (url && !seen.has(url)) {
      seen.add(url);
      const res: GitHubResponse<unknown> = await this.request(url);
      if (!Array.isArray(res.data)) {
        throw new GitHubError({
          kind: "bad-body",
          method: "GET",
          path: this.#t.display(new URL(url)),
          status: res.status,
          detail: "expected a JSON array (a list endpoint)",
        });
      }
      yield* res.data as T[];
      url = nextLink(res.link);
    }
  }

  /** All items of a list endpoint (see {@linkcode paginate}). */
  async collect<T>(path: string, query?: Query): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this.paginate<T>(path, query)) out.push(item);
    return out;
  }

  // --- reads -------------------------------------------------------------------------------

  /**
   * One cheap authenticated request (`GET /rate_limit`: it costs no rate limit, and answers any
   * token, an app's included): a bad token is found at start, not after the first cycle. Not
   * retried: throws the {@linkcode GitHubError} of the first failure.
   */
  async checkToken(): Promise<void> {
    await this.request("/rate_limit", { retry: false });
  }

  /** Issues and pull requests (those carry `pull_request`) of a repository. */
  listIssues(repo: RepoName, opts: ListIssuesOptions = {}): Promise<GitHubIssue[]> {
    return this.collect<GitHubIssue>(`${repoPath(repo)}/issues`, {
      state: opts.state ?? "open",
      labels: opts.labels,
      since: opts.since,
      per_page: opts.perPage ?? 100,
    });
  }

  /** One issue (or a pull request as an issue). */
  getIssue(repo: RepoName, number: number): Promise<GitHubIssue> {
    return this.get(`${repoPath(repo)}/issues/${number}`);
  }

  /** Conversation comments of an issue or pull request, oldest first. */
  listIssueComments(
    repo: RepoName,
    number: number,
    opts: { since?: string } = {},
  ): Promise<GitHubComment[]> {
    return this.collect(`${repoPath(repo)}/issues/${number}/comments`, { since: opts.since });
  }

  /** One pull request. */
  getPull(repo: RepoName, number: number): Promise<GitHubPull> {
    return this.get(`${repoPath(repo)}/pulls/${number}`);
  }

  /** A pull request's reviews. */
  listReviews(repo: RepoName, number: number): Promise<GitHubReview[]> {
    return this.collect(`${repoPath(repo)}/pulls/${number}/reviews`);
  }

  /** A pull request's inline review comments. */
  listReviewComments(
    repo: RepoName,
    number: number,
    opts: { since?: string } = {},
  ): Promise<GitHubReviewComment[]> {
    return this.collect(`${repoPath(repo)}/pulls/${number}/comments`, { since: opts.since });
  }

  /** `admin`, `maintain`, `write`, `triage`, `read` or `none`: a user's permission on a repository. */
  async getPermission(repo: RepoName, login: string): Promise<string> {
    const res = await this.get<{ permission?: string }>(
      `${repoPath(repo)}/collaborators/${encodeURIComponent(login)}/permission`,
    );
    return res?.permission ?? "none";
  }

  /** The issues a pull request closes (GraphQL `closingIssuesReferences`; the first 100). */
  async closingIssues(repo: RepoName, number: number): Promise<IssueRef[]> {
    const [owner, name] = repoPath(repo).split("/").slice(2).map(decodeURIComponent);
    type Data = {
      repository?: {
        pullRequest?: {
          closingIssuesReferences?: {
            nodes?: { number: number; repository: { nameWithOwner: string } }[];
          };
        } | null;
      } | null;
    };
    const data = await this.graphql<Data>(CLOSING_REFS, { owner, name, number });
    const nodes = data?.repository?.pullRequest?.closingIssuesReferences?.nodes ?? [];
    return nodes.map((n) => ({ repo: n.repository.nameWithOwner, number: n.number }));
  }

  /**
   * Who last edited conversation comments, inline review comments or reviews, by node id
   * (GraphQL `Comment.editor`, 100 ids a query): `null` for one nobody edited. REST does not say;
   * the poller asks it of the entries it is about to hand over.
   */
  async commentEditors(nodeIds: readonly string[]): Promise<Map<string, string | null>> {
    type Data = { nodes?: ({ id?: unknown; editor?: { login?: unknown } | null } | null)[] };
    const out = new Map<string, string | null>();
    for (let i = 0; i < nodeIds.length; i += 100) {
      const ids = nodeIds.slice(i, i + 100);
      const data = await this.graphql<Data>(COMMENT_EDITORS, { ids });
      for (const node of data?.nodes ?? []) {
        const login = node?.editor?.login;
        if (typeof node?.id === "string") {
          out.set(node.id, typeof login === "string" && login !== "" ? login : null);
        }
      }
    }
    return out;
  }

  /** A GraphQL query's `data`; an answer with `errors` throws a `GitHubError` (`graphql`). */
  async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await this.request<{ data?: T; errors?: { message?: string }[] }>(
      this.#graphql,
      { method: "POST", body: { query, variables }, retry: true },
    );
    const errors = res.data?.errors;
    if (Array.isArray(errors) && errors.length > 0) {
      throw new GitHubError({
        kind: "graphql",
        method: "POST",
        path: this.#t.display(new URL(this.#graphql)),
        status: res.status,
        detail: errors.map((e) => e?.message ?? "error").join("; ").slice(0, 300),
      });
    }
    return res.data?.data as T;
  }

  // --- writes ------------------------------------------------------------------------------

  /**
   * Posts a comment on an issue or pull request, stamped with the self-marker (once). Not
   * retried after a 5xx or a lost connection: it may have been posted, and a double post is
   * worse than a missing one. Rate limits are still waited out (nothing was posted).
   */
  async createComment(repo: RepoName, number: number, body: string): Promise<GitHubComment> {
    const res = await this.request<GitHubComment>(`${repoPath(repo)}/issues/${number}/comments`, {
      method: "POST",
      body: { body: markSelfAuthored(body) },
      retry: false,
    });
    return res.data;
  }

  /** Reacts to an issue/PR, a conversation comment or a review comment (idempotent at GitHub). */
  async addReaction(target: ReactionTarget, content: ReactionContent): Promise<void> {
    const base = repoPath(target.repo);
    const path = "issue" in target
      ? `${base}/issues/${target.issue}/reactions`
      : "comment" in target
      ? `${base}/issues/comments/${target.comment}/reactions`
      : `${base}/pulls/comments/${target.reviewComment}/reactions`;
    await this.request(path, { method: "POST", body: { content }, retry: true });
  }

  /** Adds labels to an issue or pull request; returns its labels after. */
  async addLabels(repo: RepoName, number: number, labels: string[]): Promise<GitHubLabel[]> {
    const res = await this.request<GitHubLabel[]>(`${repoPath(repo)}/issues/${number}/labels`, {
      method: "POST",
      body: { labels },
      retry: true,
    });
    return res.data;
  }

  /** Removes a label; false when the item did not carry it (GitHub's 404). */
  async removeLabel(repo: RepoName, number: number, label: string): Promise<boolean> {
    try {
      await this.request(
        `${repoPath(repo)}/issues/${number}/labels/${encodeURIComponent(label)}`,
        { method: "DELETE" },
      );
      return true;
    } catch (err) {
      if (err instanceof GitHubError && err.status === 404) return false;
      throw err;
    }
  }
}
