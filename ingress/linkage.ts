/**
 * How a pull request names the issues it delivers, read from text (PR linkage). The
 * router reads three sources, most authoritative first: GitHub's own `closingIssuesReferences`
 * (asked over GraphQL, or handed in by the poller), the head branch's `issue-N` / `issue/N`
 * convention, and the closing keywords of the PR body. This file reads the last two.
 *
 * ```ts
 * issueFromBranch("claude/github-issue-15-x"); // 15
 * closingKeywordRefs("Fixes: #15, closes octo/lib#3"); // [{ number: 15 }, { number: 3, repo: "octo/lib" }]
 * ```
 *
 * @module
 */

const BRANCH_ISSUE = /issue[-/](\d+)/i;

/**
 * Every closing keyword form GitHub accepts: `close[sd]`, `fix(e[sd])`, `resolve[sd]`, an optional
 * colon, then `#N`, `owner/repo#N` (another repository), `GH-N`, or an issue URL. The URL comes
 * first so that a link is not half-read as `#N`.
 */
const CLOSING =
  /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b(?:\s*:\s*|\s+)(?:https?:\/\/[^\s/]+\/([\w.-]+\/[\w.-]+)\/issues\/(\d+)\b|([\w.-]+\/[\w.-]+)?#(\d+)\b|GH-(\d+)\b)/gi;

/** The issue number a branch name carries (`issue-15`, `issue/15`, any case), if any. */
export function issueFromBranch(branch: string | null | undefined): number | undefined {
  const m = BRANCH_ISSUE.exec(branch ?? "");
  return m ? Number(m[1]) : undefined;
}

/** One closing reference: a number, and the repository it names when it names one. */
export interface KeywordRef {
  number: number;
  /** `owner/repo` of a qualified reference (`owner/repo#N` or an issue URL). */
  repo?: string;
}

/** The closing references in a PR body, in the order they are written (repeats kept). */
export function closingKeywordRefs(body: string | null | undefined): KeywordRef[] {
  const out: KeywordRef[] = [];
  for (const m of (body ?? "").matchAll(CLOSING)) {
    const repo = m[1] ?? m[3];
    const number = Number(m[2] ?? m[4] ?? m[5]);
    out.push(repo ? { number, repo } : { number });
  }
  return out;
}
