/**
 * {@linkcode GitWorkspaces}: a checkout per work item under `routing.workspace.root`, the tenth
 * work item of a repository costing a fetch, not a clone. See `docs/workspaces.md`.
 *
 * @module
 */
import type { EnvReader } from "../../config/types.ts";
import type { EventSink } from "../../events/mod.ts";
import type { WorkItemRef } from "../../state/work_item.ts";
import type { Checkout, Workspaces } from "../seams.ts";
import { authEnv, redact } from "./_auth.ts";
import { KeyedLock } from "../../async/mod.ts";
import { Ops } from "./_ops.ts";
import {
  addWorktree,
  cached,
  cloneCache,
  existingWorktree,
  fetchCache,
  planBranch,
} from "./_prepare.ts";
import { cleanupWorktree } from "./_cleanup.ts";
import { denoGit, type GitRun } from "./git.ts";
import { repoOf } from "../../state/work_item.ts";
import { cacheDir, worktreeDir } from "./layout.ts";
import { messageOf } from "../../errors.ts";

/** Options for {@linkcode GitWorkspaces}. */
export interface GitWorkspacesOptions {
  /** `routing.workspace.root` (absolute). */
  root: string;
  /** The clone URL of an item's repository (see `remoteOf` in `dispatch/open.ts`); tests pass a bare repo's path. */
  remoteUrl: (item: WorkItemRef) => string;
  /** The GitHub token, read at each clone or fetch; only ever handed to git by environment. */
  token?: () => string | undefined;
  events: EventSink;
  /** The git executable; default `git`. Ignored when `run` is given. */
  git?: string;
  /** How git is run (a test wraps {@linkcode denoGit} to record argv). */
  run?: GitRun;
  /** Where `GIT_CONFIG_COUNT` already set by the user is read; default the process environment. */
  env?: EnvReader;
}

const ms = (start: number) => Math.round(performance.now() - start);

/** Per-work-item git worktrees sharing one cached bare clone per repository. */
export class GitWorkspaces implements Workspaces {
  readonly #o: GitWorkspacesOptions;
  readonly #run: GitRun;
  readonly #lock = new KeyedLock();

  constructor(opts: GitWorkspacesOptions) {
    this.#o = opts;
    this.#run = opts.run ?? denoGit({ git: opts.git });
  }

  prepare(item: WorkItemRef, opts: { signal?: AbortSignal } = {}): Promise<Checkout> {
    const cache = cacheDir(this.#o.root, item);
    return this.#lock.run(cache, () => this.#guard(item, () => this.#prepare(item, cache, opts)));
  }

  cleanup(item: WorkItemRef): Promise<{ removed: boolean; kept?: string }> {
    const cache = cacheDir(this.#o.root, item);
    const path = worktreeDir(this.#o.root, item);
    return this.#lock.run(
      cache,
      () =>
        this.#guard(item, async () => {
          const r = await cleanupWorktree(this.#ops(item, undefined, {}), cache, path);
          if (r.removed) this.#o.events.emit("workspace.removed", { work_item: item.ref, path });
          if (r.kept) {
            this.#o.events.emit("workspace.kept", {
              work_item: item.ref,
              path,
              reason: r.kept,
              files: r.files,
            });
          }
          return r.kept ? { removed: false, kept: r.kept } : { removed: r.removed };
        }),
    );
  }

  async #prepare(item: WorkItemRef, cache: string, opts: { signal?: AbortSignal }) {
    const path = worktreeDir(this.#o.root, item);
    const local = this.#ops(item, undefined, {}, opts.signal);
    const existing = await existingWorktree(local, path, cache);
    if (existing !== undefined) return { cwd: path, branch: existing, created: false };

    const url = this.#o.remoteUrl(item);
    const token = this.#o.token?.();
    const env = this.#o.env ?? ((name: string) => Deno.env.get(name));
    const ops = this.#ops(item, token, authEnv(url, token, env), opts.signal);
    const repo = repoOf(item);
    let start = performance.now();
    if (await cached(cache)) {
      await fetchCache(ops, cache, item.number);
      this.#o.events.emit("workspace.fetched", { work_item: item.ref, repo, ms: ms(start) });
    } else {
      await cloneCache(ops, url, cache, item.number);
      this.#o.events.emit("workspace.cloned", { work_item: item.ref, repo, cache, ms: ms(start) });
    }
    start = performance.now();
    const plan = await planBranch(ops, cache, item.number);
    await addWorktree(ops, cache, path, plan);
    this.#o.events.emit("workspace.worktree_created", {
      work_item: item.ref,
      path,
      branch: plan.branch,
      base: plan.base,
      ms: ms(start),
    });
    return { cwd: path, branch: plan.branch, created: true };
  }

  #ops(
    item: WorkItemRef,
    token: string | undefined,
    auth: Record<string, string>,
    signal?: AbortSignal,
  ) {
    return new Ops({ run: this.#run, ref: item.ref, token, auth, signal });
  }

  async #guard<T>(item: WorkItemRef, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const message = redact(
        messageOf(error),
        this.#o.token?.(),
      );
      this.#o.events.emit("workspace.failed", {
        work_item: item.ref,
        repo: repoOf(item),
        step: (error as { step?: string }).step ?? "io",
        error: message,
      });
      throw error;
    }
  }
}
