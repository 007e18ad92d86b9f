/**
 * The steps of {@linkcode GitWorkspaces.prepare}: find a worktree already there, clone or fetch
 * the cache, decide the branch and its base, add the worktree.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { exists } from "../../state/files.ts";
import type { Ops } from "./_ops.ts";
import { issueBranch, pullBranch, pullRef } from "./layout.ts";

/** The refspec of the cache: remote branches as `origin/*`, never touching local branches. */
export const HEADS_REFSPEC = "+refs/heads/*:refs/remotes/origin/*";

async function isEmptyDir(path: string): Promise<boolean> {
  for await (const _ of Deno.readDir(path)) return false;
  return true;
}

/** Whether the cache has been cloned. */
export function cached(cache: string): Promise<boolean> {
  return exists(join(cache, "HEAD"));
}

/**
 * The branch of the worktree at `path` when there is one of `cache` (`undefined`: none yet, the
 * folder is absent or empty). Throws when `path` holds something else.
 */
export async function existingWorktree(
  ops: Ops,
  path: string,
  cache: string,
): Promise<string | undefined> {
  if (!(await exists(path))) return undefined;
  if (!(await exists(join(path, ".git")))) {
    if (await isEmptyDir(path)) return undefined;
    ops.fail("worktree", `${path} exists and is not a git worktree: move it away and retry.`);
  }
  const common = (await ops.must({
    step: "worktree",
    args: ["-C", path, "rev-parse", "--path-format=absolute", "--git-common-dir"],
    hint: `${path} is a damaged checkout: move it away and retry.`,
  })).trim();
  const [a, b] = await Promise.all([Deno.realPath(common), Deno.realPath(cache).catch(() => "")]);
  if (a !== b) {
    ops.fail("worktree", `${path} is a checkout of ${common}, not of ${cache}: move it away.`);
  }
  const branch = (await ops.must({
    step: "worktree",
    args: ["-C", path, "branch", "--show-current"],
    hint: `${path} is a damaged checkout: move it away and retry.`,
  })).trim();
  return branch || "HEAD";
}

/** The refspec that fetches a pull request's refs when there are any (a glob: none is no error). */
function pullRefspec(number: number): string {
  return `+refs/pull/${number}/*:refs/remotes/origin/pr/${number}/*`;
}

/**
 * Clones `url` into `cache` as a bare repository whose branches arrive as `origin/*`: into a
 * temp folder renamed into place, so a failed clone leaves nothing half-made. The clone's own
 * local branches are dropped (a stale `main` beside `origin/main` would only mislead). Then the
 * item's pull-request refs are fetched, when the remote has them.
 */
export async function cloneCache(
  ops: Ops,
  url: string,
  cache: string,
  number: number,
): Promise<void> {
  await Deno.mkdir(dirname(cache), { recursive: true });
  const tmp = `${cache}.partial-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await ops.must({
      step: "clone",
      args: [
        "clone",
        "--bare",
        "--quiet",
        "--config",
        `remote.origin.fetch=${HEADS_REFSPEC}`,
        "--",
        url,
        tmp,
      ],
      network: true,
      hint: "Check that the repository exists and that the GitHub token can read it.",
    });
    const heads = (await ops.must({
      step: "clone",
      args: ["-C", tmp, "for-each-ref", "--format=%(refname)", "refs/heads/"],
      hint: `Delete ${tmp} and retry.`,
    })).split("\n").filter((r) => r);
    if (heads.length > 0) {
      await ops.must({
        step: "clone",
        args: ["-C", tmp, "update-ref", "--stdin"],
        stdin: heads.map((r) => `delete ${r}\n`).join(""),
        hint: `Delete ${tmp} and retry.`,
      });
    }
    await ops.must({
      step: "fetch",
      args: ["-C", tmp, "fetch", "--quiet", "--no-tags", "origin", pullRefspec(number)],
      network: true,
      hint: "Check the network and the GitHub token.",
    });
    await Deno.rename(tmp, cache);
  } catch (error) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw error;
  }
}

/**
 * Fetches the remote's branches into the cache (`origin/*`, pruned) and the item's pull-request
 * refs when there are any: one round trip.
 */
export async function fetchCache(ops: Ops, cache: string, number: number): Promise<void> {
  await ops.must({
    step: "fetch",
    args: [
      "-C",
      cache,
      "fetch",
      "--quiet",
      "--prune",
      "origin",
      HEADS_REFSPEC,
      pullRefspec(number),
    ],
    network: true,
    hint:
      `Check the network and the GitHub token; deleting ${cache} makes the next spawn clone afresh.`,
  });
}

/** The branch a new worktree goes on, its base, and whether the branch exists already. */
export interface BranchPlan {
  branch: string;
  /** The commit-ish a new branch starts from. */
  base: string;
  existing: boolean;
}

/**
 * Picks the branch: one left from an earlier worktree of the item (kept with its commits);
 * else `the-loop/pr-<n>` from the fetched `refs/pull/<n>/head` (the item is a pull request);
 * else `the-loop/issue-<n>` from the default branch.
 */
export async function planBranch(ops: Ops, cache: string, number: number): Promise<BranchPlan> {
  const [pr, issue] = [pullBranch(number), issueBranch(number)];
  const refs = new Set((await ops.must({
    step: "worktree",
    args: [
      "-C",
      cache,
      "for-each-ref",
      "--format=%(refname)",
      `refs/heads/${pr}`,
      `refs/heads/${issue}`,
      pullRef(number),
    ],
    hint: `The cache ${cache} is damaged: delete it and retry.`,
  })).split("\n"));
  for (const branch of [pr, issue]) {
    if (refs.has(`refs/heads/${branch}`)) return { branch, base: branch, existing: true };
  }
  if (refs.has(pullRef(number))) return { branch: pr, base: pullRef(number), existing: false };
  const head = await ops.try({
    step: "worktree",
    args: ["-C", cache, "symbolic-ref", "--quiet", "HEAD"],
  });
  const name = head.stdout.trim().replace(/^refs\/heads\//, "");
  const base = `refs/remotes/origin/${name}`;
  const there = await ops.try({
    step: "worktree",
    args: ["-C", cache, "rev-parse", "--verify", "--quiet", base],
  });
  if (head.code !== 0 || !name || there.code !== 0) {
    ops.fail(
      "worktree",
      `the remote's default branch (${name || "unknown"}) has no commit yet: push one, then retry.`,
    );
  }
  return { branch: issue, base, existing: false };
}
/** Adds the worktree at `path` on the planned branch. */
export async function addWorktree(
  ops: Ops,
  cache: string,
  path: string,
  plan: BranchPlan,
): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const hint =
    `Check ${path} (remove it if it is a leftover) and run \`git -C ${cache} worktree prune\`.`;
  await ops.must({ step: "worktree", args: ["-C", cache, "worktree", "prune"], hint });
  const add = plan.existing
    ? ["worktree", "add", "--quiet", path, plan.branch]
    : ["worktree", "add", "--quiet", "--no-track", "-b", plan.branch, path, plan.base];
  await ops.must({ step: "worktree", args: ["-C", cache, ...add], hint });
}
