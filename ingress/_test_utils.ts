/**
 * Test helpers for the router: webhook payloads in GitHub's documented shapes (numeric `id`,
 * `node_id`, `html_url`, `user.login`, `repository.full_name`/`html_url`, `sender.login`, the
 * `pull_request` key on a PR's issue), a recording dispatcher, a tiny in-memory GitHub and
 * session lookup, and a router wired to them.
 *
 * @module
 */
import type { Dispatcher, DispatchOutcome, RoutedEvent } from "../dispatch/mod.ts";
import { MemorySink } from "../events/mod.ts";
import { GitHubError, type GitHubIssue, type IssueRef } from "../github/mod.ts";
import type { SessionLookup, SessionRecord } from "../state/registry.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { DEFAULT_EVENTS } from "./policy.ts";
import { Router } from "./router.ts";
import type { IngressEvent, RouterGitHub, RoutingPolicy } from "./types.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const REPO = "octo/repo";
export const LABEL = "the-loop: auto-execute";
export const WEB = "https://github.com";

let nextId = 5000;
const id = () => nextId++;

export function user(login: string): Json {
  const n = id();
  return { login, id: n, node_id: `U_${n}`, type: "User", html_url: `${WEB}/${login}` };
}

export function repository(fullName = REPO, web = WEB): Json {
  const n = id();
  const [owner, name] = fullName.split("/");
  return {
    id: n,
    node_id: `R_${n}`,
    name,
    full_name: fullName,
    owner: user(owner),
    private: false,
    html_url: `${web}/${fullName}`,
  };
}

export interface ItemOpts {
  repo?: string;
  web?: string;
  labels?: string[];
  body?: string;
  author?: string;
  state?: "open" | "closed";
}

/** An issue object (`pr: true`: a PR's issue, with the `pull_request` key). */
export function issue(number: number, opts: ItemOpts & { pr?: boolean } = {}): Json {
  const n = id();
  const repo = opts.repo ?? REPO;
  const web = opts.web ?? WEB;
  const out: Json = {
    id: n,
    node_id: `I_${n}`,
    number,
    title: `item ${number}`,
    body: opts.body ?? "",
    state: opts.state ?? "open",
    user: user(opts.author ?? "octocat"),
    labels: (opts.labels ?? []).map(label),
    html_url: `${web}/${repo}/${opts.pr ? "pull" : "issues"}/${number}`,
  };
  if (opts.pr) {
    out.pull_request = {
      url: `/repos/${repo}/pulls/${number}`,
      html_url: `${web}/${repo}/pull/${number}`,
      merged_at: null,
    };
  }
  return out;
}

export function label(name: string): Json {
  const n = id();
  return { id: n, node_id: `LA_${n}`, name, color: "ededed" };
}

/** A pull request object. */
export function pull(
  number: number,
  opts: ItemOpts & { head?: string; merged?: boolean } = {},
): Json {
  const n = id();
  const repo = opts.repo ?? REPO;
  const web = opts.web ?? WEB;
  return {
    id: n,
    node_id: `PR_${n}`,
    number,
    title: `pull ${number}`,
    body: opts.body ?? "",
    state: opts.state ?? "open",
    merged: opts.merged ?? false,
    merged_at: opts.merged ? "2026-01-01T00:00:00Z" : null,
    user: user(opts.author ?? "octocat"),
    labels: (opts.labels ?? []).map(label),
    head: { ref: opts.head ?? `branch-${number}`, sha: "abc123" },
    base: { ref: "main" },
    html_url: `${web}/${repo}/pull/${number}`,
  };
}

function envelope(action: string, sender: string, repo: string, web: string): Json {
  return { action, repository: repository(repo, web), sender: user(sender) };
}

/** `issue_comment` (`pr: true`: on a PR's conversation). */
export function issueCommentPayload(
  opts: ItemOpts & {
    number?: number;
    text?: string;
    login?: string;
    pr?: boolean;
    action?: string;
  },
): Json {
  const login = opts.login ?? "alice";
  const item = issue(opts.number ?? 15, opts);
  const n = id();
  return {
    ...envelope(opts.action ?? "created", login, opts.repo ?? REPO, opts.web ?? WEB),
    issue: item,
    comment: {
      id: n,
      node_id: `IC_${n}`,
      body: opts.text ?? "please look",
      user: user(login),
      html_url: `${item.html_url}#issuecomment-${n}`,
    },
  };
}

/** `issues` (`labeled` adds the `label` object). */
export function issuesPayload(
  opts: ItemOpts & { number?: number; action?: string; sender?: string; label?: string },
): Json {
  const out = {
    ...envelope(
      opts.action ?? "opened",
      opts.sender ?? "alice",
      opts.repo ?? REPO,
      opts.web ?? WEB,
    ),
    issue: issue(opts.number ?? 15, opts),
  };
  if (opts.label !== undefined) out.label = label(opts.label);
  return out;
}

/** `pull_request`. */
export function pullRequestPayload(
  opts: ItemOpts & {
    number?: number;
    action?: string;
    sender?: string;
    head?: string;
    merged?: boolean;
    label?: string;
  },
): Json {
  const out = {
    ...envelope(
      opts.action ?? "opened",
      opts.sender ?? "alice",
      opts.repo ?? REPO,
      opts.web ?? WEB,
    ),
    number: opts.number ?? 42,
    pull_request: pull(opts.number ?? 42, opts),
  };
  if (opts.label !== undefined) out.label = label(opts.label);
  return out;
}

/** `pull_request_review` (submitted). */
export function reviewPayload(
  opts: ItemOpts & { number?: number; text?: string | null; login?: string; head?: string },
): Json {
  const login = opts.login ?? "alice";
  const pr = pull(opts.number ?? 42, opts);
  const n = id();
  return {
    ...envelope("submitted", login, opts.repo ?? REPO, opts.web ?? WEB),
    pull_request: pr,
    review: {
      id: n,
      node_id: `PRR_${n}`,
      body: opts.text === undefined ? "looks off" : opts.text,
      state: "commented",
      user: user(login),
      html_url: `${pr.html_url}#pullrequestreview-${n}`,
      submitted_at: "2026-01-01T00:00:00Z",
    },
  };
}

/** `pull_request_review_comment` (an inline comment). */
export function reviewCommentPayload(
  opts: ItemOpts & {
    number?: number;
    text?: string;
    login?: string;
    line?: number | null;
    originalLine?: number | null;
    head?: string;
  },
): Json {
  const login = opts.login ?? "alice";
  const pr = pull(opts.number ?? 42, opts);
  const n = id();
  return {
    ...envelope("created", login, opts.repo ?? REPO, opts.web ?? WEB),
    pull_request: pr,
    comment: {
      id: n,
      node_id: `PRRC_${n}`,
      body: opts.text ?? "rename this",
      path: "src/a.ts",
      line: opts.line === undefined ? 7 : opts.line,
      original_line: opts.originalLine ?? 5,
      user: user(login),
      html_url: `${pr.html_url}#discussion_r${n}`,
    },
  };
}

/** `workflow_run` (`check_suite` has the same run shape under its own key). */
export function workflowRunPayload(
  opts: { headBranch?: string; prs?: number[]; repo?: string; event?: string } = {},
): Json {
  const key = opts.event ?? "workflow_run";
  const n = id();
  return {
    action: "completed",
    repository: repository(opts.repo ?? REPO),
    sender: user("github-actions[bot]"),
    [key]: {
      id: n,
      head_branch: opts.headBranch ?? "main",
      conclusion: "failure",
      pull_requests: (opts.prs ?? []).map((number) => ({ id: id(), number })),
    },
  };
}

/** `check_run`: its PRs, and its suite's head branch. */
export function checkRunPayload(opts: { headBranch?: string; prs?: number[] } = {}): Json {
  const prs = (opts.prs ?? []).map((number) => ({ id: id(), number }));
  return {
    action: "completed",
    repository: repository(),
    sender: user("github-actions[bot]"),
    check_run: {
      id: id(),
      conclusion: "failure",
      pull_requests: prs,
      check_suite: { id: id(), head_branch: opts.headBranch ?? "main", pull_requests: prs },
    },
  };
}

/** `status`: the branches the commit is on. */
export function statusPayload(branches: string[]): Json {
  return {
    id: id(),
    sha: "abc123",
    state: "failure",
    repository: repository(),
    sender: user("ci-bot"),
    branches: branches.map((name) => ({ name, commit: { sha: "abc123" } })),
  };
}

/** An ingress event for `payload` (a fresh delivery id unless given). */
export function ingress(
  ghEvent: string,
  payload: Json,
  opts: Partial<IngressEvent> = {},
): IngressEvent {
  return { ghEvent, deliveryId: crypto.randomUUID(), via: "gh-webhook", payload, ...opts };
}

/** A dispatcher that records what it is handed and answers `answer(event)` (delivered). */
export class RecordingDispatcher implements Dispatcher {
  readonly events: RoutedEvent[] = [];
  answer: (event: RoutedEvent) => DispatchOutcome | Promise<DispatchOutcome> = () => ({
    status: "delivered",
  });

  async dispatch(event: RoutedEvent): Promise<DispatchOutcome> {
    this.events.push(event);
    return await this.answer(event);
  }

  /** The refs dispatched, in order. */
  get refs(): string[] {
    return this.events.map((e) => e.workItem.ref);
  }
}

/** An in-memory GitHub: closing references per PR, which issues exist, and every call made. */
export class FakeRouterGitHub implements RouterGitHub {
  /** `owner/repo#N` → the issues the PR closes. */
  readonly closing = new Map<string, IssueRef[]>();
  /** `owner/repo#N` of the items that exist (others answer 404). */
  readonly existing = new Set<string>();
  readonly calls: string[] = [];
  /** When set, closingIssues throws it. */
  closingError?: Error;
  /** When set, getIssue throws it. */
  issueError?: Error;

  closingIssues(repo: string, number: number): Promise<IssueRef[]> {
    this.calls.push(`closingIssues ${repo}#${number}`);
    if (this.closingError) return Promise.reject(this.closingError);
    return Promise.resolve(this.closing.get(`${repo}#${number}`) ?? []);
  }

  getIssue(repo: string, number: number): Promise<GitHubIssue> {
    this.calls.push(`getIssue ${repo}#${number}`);
    if (this.issueError) return Promise.reject(this.issueError);
    if (!this.existing.has(`${repo}#${number}`)) {
      return Promise.reject(
        new GitHubError({
          kind: "http",
          method: "GET",
          path: `/repos/${repo}/issues/${number}`,
          status: 404,
          detail: "Not Found",
        }),
      );
    }
    return Promise.resolve(issue(number, { repo }) as GitHubIssue);
  }
}

/** Sessions in memory: the refs with a live session. */
export class FakeSessions implements SessionLookup {
  readonly refs = new Set<string>();
  readonly asked: string[] = [];

  constructor(refs: string[] = []) {
    for (const r of refs) this.refs.add(r);
  }

  live(ref: string): Promise<SessionRecord | undefined> {
    this.asked.push(ref);
    return Promise.resolve(this.refs.has(ref) ? record(ref) : undefined);
  }

  listLive(): Promise<SessionRecord[]> {
    return Promise.resolve([...this.refs].map(record));
  }
}

function record(ref: string): SessionRecord {
  const item = parseWorkItem(ref)!;
  return {
    workItem: {
      ref,
      provider: "github",
      host: item.host,
      owner: item.owner,
      repo: item.repo,
      number: item.number,
    },
    harness: "claude",
    harnessSessionId: "00000000-0000-0000-0000-000000000000",
    cwd: "/tmp",
    status: "active",
    createdAt: "2026-01-01T00:00:00Z",
    lastEventAt: null,
    tmuxTarget: "",
    recentDeliveries: [],
    url: "",
  };
}

/** The policy tests start from: alice and bob may steer; the default label; every event. */
export const POLICY: RoutingPolicy = {
  events: [...DEFAULT_EVENTS],
  authorizedUsers: ["alice", "Bob"],
  autoExecuteLabel: LABEL,
};

/** A router over fakes; everything is exposed for assertions. */
export function testRouter(
  opts: { policy?: Partial<RoutingPolicy>; live?: string[]; dedupCacheSize?: number } = {},
) {
  const dispatcher = new RecordingDispatcher();
  const github = new FakeRouterGitHub();
  const sessions = new FakeSessions(opts.live);
  const sink = new MemorySink({ strict: true, source: "gh-webhook" });
  const router = new Router({
    dispatcher,
    github,
    sessions,
    events: sink,
    policy: { ...POLICY, ...opts.policy },
    dedupCacheSize: opts.dedupCacheSize,
  });
  return { router, dispatcher, github, sessions, sink };
}
