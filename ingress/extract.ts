/**
 * Work-item extraction: which issues and pull requests an event concerns, in the
 * order the router prefers them, each with where the router learnt it.
 *
 * - `issues`, `issue_comment`: the issue;
 * - pull request events (`pull_request*`, and an `issue_comment` whose `issue` has a
 *   `pull_request` key): the issues the PR closes first — GitHub's `closingIssuesReferences`,
 *   then the head branch's `issue-N`, then closing keywords in the body (cross-repository refs
 *   kept) — then the PR itself; a reference to the PR itself is ignored;
 * - `workflow_run`, `check_suite`, `check_run`: the run's `pull_requests[].number`, then `issue-N`
 *   from its head branch; `status`: `issue-N` from `branches[].name`;
 * - anything else: nothing.
 *
 * The host comes from `repository.html_url`, else from the item's `html_url` (GitHub Enterprise
 * items get `github:host/owner/repo#N` refs).
 *
 * @module
 */
import type { IssueRef } from "../github/mod.ts";
import { GITHUB_HOST, workItem, type WorkItemRef } from "../state/work_item.ts";
import { closingKeywordRefs, issueFromBranch } from "./linkage.ts";

/** Where a ref came from. Only `branch` can name an item nobody created. */
export type LinkSource = "entity" | "closing-reference" | "branch" | "keyword";

/** One work item an event concerns. */
export interface Candidate {
  item: WorkItemRef;
  /** Every source that named it (a ref named twice is kept once, with both sources). */
  sources: Set<LinkSource>;
  /** When it was reached through a pull request's linkage: the PR's ref. */
  linkedFrom?: string;
}

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (typeof v === "object" && v !== null ? v as Obj : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const int = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : undefined;

/** The repository and host an event is in, and the pull request it is about (if any). */
export interface Located {
  owner: string;
  repo: string;
  host: string;
  /** The pull request the event is about: its number, head branch (when the payload has it), body. */
  pr?: { number: number; head: string; body: string };
  /** The issue or pull request the event is about (not set for CI events). */
  entity?: Obj;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/** Where the event is: `undefined` when the payload names no repository. */
export function locate(ghEvent: string, payload: Obj): Located | undefined {
  const repository = obj(payload.repository);
  const entity = ghEvent === "issues" || ghEvent === "issue_comment"
    ? obj(payload.issue)
    : ghEvent.startsWith("pull_request")
    ? obj(payload.pull_request)
    : undefined;
  const itemUrl = str(entity?.html_url);
  let [owner, repo] = str(repository.full_name).split("/");
  if (!owner || !repo) {
    // no repository object (a hand-built payload): read it off the item's URL
    const m = /^https?:\/\/[^/]+\/([^/]+)\/([^/]+)\/(?:issues|pull)\/\d+/.exec(itemUrl);
    if (!m) return undefined;
    [owner, repo] = [m[1], m[2]];
  }
  const host = hostOf(str(repository.html_url)) ?? hostOf(itemUrl) ?? GITHUB_HOST;
  const out: Located = { owner, repo, host };
  if (entity && Object.keys(entity).length > 0) out.entity = entity;
  const isPr = ghEvent.startsWith("pull_request") || entity?.pull_request !== undefined;
  const number = int(entity?.number);
  if (entity && isPr && number !== undefined) {
    out.pr = { number, head: str(obj(entity.head).ref), body: str(entity.body) };
  }
  return out;
}

/** The ref of the pull request a located event is about, if any. */
export function prRef(where: Located): WorkItemRef | undefined {
  if (!where.pr) return undefined;
  try {
    return workItem({
      host: where.host,
      owner: where.owner,
      repo: where.repo,
      number: where.pr.number,
    });
  } catch {
    return undefined;
  }
}

/** The CI run object of a CI event (`check_run` reads its suite for the head branch). */
function ciRun(ghEvent: string, payload: Obj): { prs: unknown[]; branches: string[] } {
  const prs = (v: unknown) => (Array.isArray(v) ? v : []);
  if (ghEvent === "workflow_run" || ghEvent === "check_suite") {
    const run = obj(payload[ghEvent]);
    return { prs: prs(run.pull_requests), branches: [str(run.head_branch)] };
  }
  if (ghEvent === "check_run") {
    const run = obj(payload.check_run);
    const suite = obj(run.check_suite);
    return {
      prs: prs(run.pull_requests ?? suite.pull_requests),
      branches: [str(suite.head_branch)],
    };
  }
  if (ghEvent === "status") {
    return { prs: [], branches: prs(payload.branches).map((b) => str(obj(b).name)) };
  }
  return { prs: [], branches: [] };
}

/**
 * The work items `payload` concerns, preferred first. `closingIssues` are the PR's
 * `closingIssuesReferences` (ignored for events not about a PR).
 */
export function extractWorkItems(
  ghEvent: string,
  payload: Obj,
  closingIssues: readonly IssueRef[] = [],
): Candidate[] {
  const where = locate(ghEvent, payload);
  if (!where) return [];
  const { host } = where;
  const out = new Map<string, Candidate>();
  const add = (
    number: number | undefined,
    source: LinkSource,
    opts: { repo?: string; linkedFrom?: string } = {},
  ) => {
    if (number === undefined) return;
    const [owner, repo] = opts.repo?.split("/") ?? [where.owner, where.repo];
    let item: WorkItemRef;
    try {
      item = workItem({ host, owner, repo, number });
    } catch {
      return; // a malformed name or number names nothing
    }
    const known = out.get(item.ref);
    if (known) known.sources.add(source);
    else out.set(item.ref, { item, sources: new Set([source]), linkedFrom: opts.linkedFrom });
  };
  if (where.pr) {
    const pr = where.pr;
    const self = prRef(where);
    if (!self) return [];
    const linked = (number: number, source: LinkSource, repo?: string) => {
      const local = !repo || repo.toLowerCase() === `${where.owner}/${where.repo}`.toLowerCase();
      if (local && number === pr.number) return; // the PR naming itself
      add(number, source, { repo: local ? undefined : repo, linkedFrom: self.ref });
    };
    for (const ref of closingIssues) linked(ref.number, "closing-reference", ref.repo);
    const branch = issueFromBranch(pr.head);
    if (branch !== undefined) linked(branch, "branch");
    for (const ref of closingKeywordRefs(pr.body)) linked(ref.number, "keyword", ref.repo);
    add(pr.number, "entity");
  } else if (where.entity) {
    if (ghEvent === "issues" || ghEvent === "issue_comment") {
      add(int(where.entity.number), "entity");
    }
  } else {
    const run = ciRun(ghEvent, payload);
    for (const pr of run.prs) add(int(obj(pr).number), "entity");
    for (const branch of run.branches) add(issueFromBranch(branch), "branch");
  }
  return [...out.values()];
}

/** Whether a candidate was named by a branch name alone (so may name an item nobody created). */
export function branchOnly(candidate: Candidate): boolean {
  return candidate.sources.size === 1 && candidate.sources.has("branch");
}
