/**
 * Work-item references: `github:owner/repo#N` for github.com and `github:host/owner/repo#N` for
 * a GitHub Enterprise host. One parser and one formatter for every place that names an item (the
 * router, the poll ledger, the session registry, the CLI).
 *
 * @module
 */

/** The host of github.com refs (written without a host). */
export const GITHUB_HOST = "github.com";

/** A parsed work-item reference. */
export interface WorkItemRef {
  provider: "github";
  /** `github.com`, or the Enterprise host. */
  host: string;
  owner: string;
  repo: string;
  number: number;
  /** The canonical text: `github:owner/repo#N` or `github:host/owner/repo#N`. */
  ref: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;
const HOST = /^[A-Za-z0-9.-]+(:[0-9]+)?$/;

/** Builds a ref from its parts (the host defaults to github.com). Throws on invalid parts. */
export function workItem(
  parts: { owner: string; repo: string; number: number; host?: string },
): WorkItemRef {
  const host = (parts.host ?? GITHUB_HOST).toLowerCase();
  if (!HOST.test(host)) throw new RangeError(`"${host}" is not a host name`);
  if (!NAME.test(parts.owner)) throw new RangeError(`"${parts.owner}" is not an owner name`);
  if (!NAME.test(parts.repo)) throw new RangeError(`"${parts.repo}" is not a repository name`);
  if (!Number.isSafeInteger(parts.number) || parts.number < 1) {
    throw new RangeError(`${parts.number} is not an issue or pull request number`);
  }
  const path = `${parts.owner}/${parts.repo}#${parts.number}`;
  return {
    provider: "github",
    host,
    owner: parts.owner,
    repo: parts.repo,
    number: parts.number,
    ref: host === GITHUB_HOST ? `github:${path}` : `github:${host}/${path}`,
  };
}

/**
 * Parses `github:owner/repo#N` or `github:host/owner/repo#N`; `undefined` when `text` is not a
 * ref (the CLI turns that into a usage error).
 */
export function parseWorkItem(text: string): WorkItemRef | undefined {
  // a daemon parses the same few refs many times per event: the answers are remembered (each
  // caller gets its own copy), a bounded number of them
  const known = parsed.get(text);
  if (known !== undefined) return known === null ? undefined : { ...known };
  if (parsed.size >= PARSED_MAX) parsed.clear();
  const item = parseFresh(text);
  parsed.set(text, item ?? null);
  return item && { ...item };
}

const PARSED_MAX = 4096;
const parsed = new Map<string, WorkItemRef | null>();

function parseFresh(text: string): WorkItemRef | undefined {
  const m = /^github:(?:([^/#\s]+)\/)?([^/#\s]+)\/([^/#\s]+)#([0-9]+)$/.exec(text.trim());
  if (!m) return undefined;
  try {
    return workItem({ host: m[1], owner: m[2], repo: m[3], number: Number(m[4]) });
  } catch {
    return undefined;
  }
}

/** `OWNER/REPO` of a ref. */
export function repoOf(item: WorkItemRef): string {
  return `${item.owner}/${item.repo}`;
}

/** The item's page on GitHub (an issue URL: GitHub redirects it to the pull request). */
export function webUrlOf(item: WorkItemRef): string {
  return `https://${item.host}/${item.owner}/${item.repo}/issues/${item.number}`;
}

/** The file-name-safe slug: `github-octo-repo-15` (`github-host-octo-repo-15` for Enterprise). */
export function slugOf(item: WorkItemRef): string {
  const host = item.host === GITHUB_HOST ? "" : `${item.host}-`;
  return `github-${host}${item.owner}-${item.repo}-${item.number}`
    .replace(/[^A-Za-z0-9_.-]/g, "-");
}
