import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../../events/mod.ts";
import { workItem } from "../../state/work_item.ts";
import { GitWorkspaces } from "./mod.ts";
import { git, gitEnv, makeRemote } from "./_test_utils.ts";
import { denoGit } from "./git.ts";

const item = (number: number) => workItem({ owner: "octo", repo: "repo", number });
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-ws-clean-" });
  const env = await gitEnv(dir);
  const remote = await makeRemote(dir, env);
  const events = new MemorySink();
  const root = join(dir, "workspaces");
  const ws = new GitWorkspaces({
    root,
    remoteUrl: () => remote.bare,
    events,
    run: denoGit({ env }),
  });
  const dispose = () => Deno.remove(dir, { recursive: true });
  return { env, events, root, ws, [Symbol.asyncDispose]: dispose };
}

Deno.test("cleanup removes a clean worktree and keeps its branch (and commits) in the cache", async () => {
  await using s = await setup();
  const { env, events, ws } = s;
  const co = await ws.prepare(item(1), {});
  await Deno.writeTextFile(join(co.cwd, "done.txt"), "done\n");
  await git(env, "-C", co.cwd, "add", "done.txt");
  await git(env, "-C", co.cwd, "commit", "--quiet", "-m", "work");
  assert.deepEqual(await ws.cleanup(item(1)), { removed: true });
  assert.equal(await exists(co.cwd), false);
  assert.deepEqual(events.ofType("workspace.removed").map((r) => r.path), [co.cwd]);
  // the next spawn of the item gets its branch back, commit included
  const again = await ws.prepare(item(1), {});
  assert.deepEqual(again, { ...co, created: true });
  assert.equal(await Deno.readTextFile(join(again.cwd, "done.txt")), "done\n");
});

Deno.test("cleanup keeps a worktree with uncommitted changes and says why", async () => {
  await using s = await setup();
  const { events, ws } = s;
  const co = await ws.prepare(item(2), {});
  await Deno.writeTextFile(join(co.cwd, "README.md"), "edited\n");
  await Deno.writeTextFile(join(co.cwd, "untracked.txt"), "new\n");
  const r = await ws.cleanup(item(2));
  assert.deepEqual(r, { removed: false, kept: "uncommitted changes: 2 files" });
  assert.equal(await Deno.readTextFile(join(co.cwd, "untracked.txt")), "new\n");
  const kept = events.ofType("workspace.kept");
  assert.equal(kept.length, 1);
  assert.equal(kept[0].files, 2);
  assert.equal(kept[0].reason, "uncommitted changes: 2 files");
  assert.equal(events.ofType("workspace.removed").length, 0);
});

Deno.test("cleanup of an item that has no worktree does nothing", async () => {
  await using s = await setup();
  const { events, ws } = s;
  assert.deepEqual(await ws.cleanup(item(3)), { removed: false });
  assert.deepEqual(events.records, []);
});
