/**
 * Bench: what a work item's checkout costs. A local bare repository of a few hundred generated
 * files (over `file://`, so git packs and transfers objects as it would over the network, instead
 * of hard-linking them) stands in for GitHub. The first work item of the repository clones the
 * cache and adds its worktree; the second fetches and adds a worktree. Reported per run (median
 * over `THE_LOOP_BENCH_RUNS`, default 3): wall time (and the clone, fetch and worktree steps
 * as their events time them), and disk (allocated blocks, hard links counted once) of the cache
 * plus the first worktree, then what the second added. The second item costs a fetch and a
 * checkout, not a clone: its added disk is its own checked-out files, the history is shared.
 *
 * @module
 */
import { join } from "node:path";
import { MemorySink } from "../events/mod.ts";
import { workItem } from "../state/work_item.ts";
import { denoGit, GitWorkspaces } from "../dispatch/workspace/mod.ts";
import { gitEnv, makeRemote } from "../dispatch/workspace/_test_utils.ts";
import { round } from "./_stats.ts";

const quick = Deno.env.get("THE_LOOP_BENCH_QUICK") === "1";
const FILES = quick ? 50 : 400;
const RUNS = Number(Deno.env.get("THE_LOOP_BENCH_RUNS") ?? "3");

/** Allocated bytes under `dir` (each inode once). */
async function diskBytes(dir: string, seen = new Set<number>()): Promise<number> {
  let total = 0;
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    const st = await Deno.lstat(path);
    if (st.ino !== null && seen.has(st.ino)) continue;
    if (st.ino !== null) seen.add(st.ino);
    total += st.blocks !== null ? st.blocks * 512 : st.size;
    if (st.isDirectory) total += await diskBytes(path, seen);
  }
  return total;
}

/** Generated source-like files: `src/mod_<i>/file_<j>.ts`, about 2 KB each. */
function generated(n: number): Record<string, string> {
  const files: Record<string, string> = { "README.md": "# bench\n" };
  for (let i = 0; i < n; i++) {
    const lines = Array.from(
      { length: 60 },
      (_, l) => `export const v${l} = ${i * 1000 + l}; // ${"x".repeat(8)}`,
    );
    files[`src/mod_${i % 20}/file_${i}.ts`] = lines.join("\n") + "\n";
  }
  return files;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Run {
  first_ms: number;
  first_clone_ms: number;
  first_worktree_ms: number;
  first_disk_bytes: number;
  first_cache_disk_bytes: number;
  second_ms: number;
  second_fetch_ms: number;
  second_worktree_ms: number;
  second_added_disk_bytes: number;
}

async function once(files: Record<string, string>): Promise<Run> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-ws-" });
  try {
    const env = await gitEnv(dir);
    const remote = await makeRemote(dir, env, files);
    const events = new MemorySink();
    const root = join(dir, "workspaces");
    const ws = new GitWorkspaces({
      root,
      remoteUrl: () => `file://${remote.bare}`,
      events,
      run: denoGit({ env }),
    });
    const item = (number: number) => workItem({ owner: "bench", repo: "repo", number });
    let t = performance.now();
    await ws.prepare(item(1), {});
    const first_ms = performance.now() - t;
    const first_disk_bytes = await diskBytes(root);
    const first_cache_disk_bytes = await diskBytes(join(root, ".cache"));
    await remote.push({ "CHANGELOG.md": "one more commit between the spawns\n" });
    t = performance.now();
    await ws.prepare(item(2), {});
    const second_ms = performance.now() - t;
    const ms = (type: string, i = 0) => Number(events.ofType(type)[i]?.ms ?? NaN);
    return {
      first_ms,
      first_clone_ms: ms("workspace.cloned"),
      first_worktree_ms: ms("workspace.worktree_created"),
      first_disk_bytes,
      first_cache_disk_bytes,
      second_ms,
      second_fetch_ms: ms("workspace.fetched"),
      second_worktree_ms: ms("workspace.worktree_created", 1),
      second_added_disk_bytes: (await diskBytes(root)) - first_disk_bytes,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const files = generated(FILES);
  const runs: Run[] = [];
  for (let i = 0; i < Math.max(1, RUNS); i++) runs.push(await once(files));
  const m = (k: keyof Run) => median(runs.map((r) => r[k]));
  const first = {
    ms: round(m("first_ms")),
    clone_ms: m("first_clone_ms"),
    worktree_ms: m("first_worktree_ms"),
    disk_bytes: m("first_disk_bytes"),
    cache_disk_bytes: m("first_cache_disk_bytes"),
  };
  const second = {
    ms: round(m("second_ms")),
    fetch_ms: m("second_fetch_ms"),
    worktree_ms: m("second_worktree_ms"),
    added_disk_bytes: m("second_added_disk_bytes"),
  };
  return {
    runs: runs.length,
    files: Object.keys(files).length,
    remote: "file:// bare repository (packed transfer, no hard links)",
    first_item: first,
    second_item: second,
    second_vs_first_time: round(second.ms / first.ms),
    second_vs_first_disk: round(second.added_disk_bytes / first.disk_bytes),
  };
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
