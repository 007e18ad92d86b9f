import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../../events/mod.ts";
import { workItem } from "../../state/work_item.ts";
import { GitWorkspaces, WorkspaceError } from "./mod.ts";
import { git, gitEnv, makeRemote, recordingGit, subcommands } from "./_test_utils.ts";

const item = (number: number) => workItem({ owner: "octo", repo: "repo", number });

async function setup(files?: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-ws-" });
  const env = await gitEnv(dir);
  const remote = await makeRemote(dir, env, files);
  const rec = recordingGit(env);
  const events = new MemorySink();
  const root = join(dir, "workspaces");
  const ws = new GitWorkspaces({ root, remoteUrl: () => remote.bare, events, run: rec.run });
  const dispose = () => Deno.remove(dir, { recursive: true });
  return { dir, env, remote, rec, events, root, ws, [Symbol.asyncDispose]: dispose };
}

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("the first prepare clones the cache and adds the item's worktree on its branch", async () => {
  await using s = await setup({ "README.md": "hello\n" });
  const { env, rec, events, root, ws } = s;
  const co = await ws.prepare(item(15), {});
  assert.deepEqual(co, {
    cwd: join(root, "github.com", "octo", "repo", "15"),
    branch: "the-loop/issue-15",
    created: true,
  });
  assert.equal(await Deno.readTextFile(join(co.cwd, "README.md")), "hello\n");
  assert.equal(
    (await git(env, "-C", co.cwd, "branch", "--show-current")).trim(),
    "the-loop/issue-15",
  );
  const cache = join(root, ".cache", "github.com", "octo", "repo.git");
  assert.equal((await git(env, "-C", cache, "rev-parse", "--is-bare-repository")).trim(), "true");
  // the clone's own branches are dropped: only origin/* and the worktree's branch remain
  const refs = (await git(env, "-C", cache, "for-each-ref", "--format=%(refname)", "refs/heads"))
    .trim().split("\n");
  assert.deepEqual(refs, ["refs/heads/the-loop/issue-15"]);
  assert.equal(subcommands(rec.calls).filter((c) => c === "clone").length, 1);
  assert.deepEqual(events.records.map((r) => r.event), [
    "workspace.cloned",
    "workspace.worktree_created",
  ]);
  assert.equal(events.records[1].path, co.cwd);
  assert.equal(events.records[1].base, "refs/remotes/origin/main");
});

Deno.test("a second item of the repo costs a fetch, not a clone, and sees what was pushed since", async () => {
  await using s = await setup();
  const { remote, rec, events, ws } = s;
  await ws.prepare(item(1), {});
  const before = rec.calls.length;
  await remote.push({ "new.txt": "pushed between spawns\n" });
  const co = await ws.prepare(item(2), {});
  assert.equal(co.created, true);
  assert.equal(co.branch, "the-loop/issue-2");
  const second = subcommands(rec.calls.slice(before));
  assert.ok(!second.includes("clone"), `second prepare ran ${second.join(", ")}`);
  assert.equal(second.filter((c) => c === "fetch").length, 1, "one round trip to the remote");
  assert.equal(await Deno.readTextFile(join(co.cwd, "new.txt")), "pushed between spawns\n");
  assert.equal(events.ofType("workspace.fetched").length, 1);
  assert.equal(events.ofType("workspace.cloned").length, 1);
});

Deno.test("two items of one repo prepared at once both get their worktree from one clone", async () => {
  await using s = await setup();
  const { rec, ws } = s;
  const [a, b] = await Promise.all([ws.prepare(item(3), {}), ws.prepare(item(4), {})]);
  assert.deepEqual([a.branch, b.branch], ["the-loop/issue-3", "the-loop/issue-4"]);
  assert.ok(await exists(join(a.cwd, "README.md")));
  assert.ok(await exists(join(b.cwd, "README.md")));
  assert.equal(subcommands(rec.calls).filter((c) => c === "clone").length, 1);
});

Deno.test("preparing an item again reuses its worktree without touching the remote", async () => {
  await using s = await setup();
  const { rec, ws } = s;
  const first = await ws.prepare(item(5), {});
  await Deno.writeTextFile(join(first.cwd, "work.txt"), "in progress\n");
  const before = rec.calls.length;
  const again = await ws.prepare(item(5), {});
  assert.deepEqual(again, { ...first, created: false });
  const ran = subcommands(rec.calls.slice(before));
  assert.ok(!ran.includes("fetch") && !ran.includes("clone"), ran.join(", "));
  assert.equal(await Deno.readTextFile(join(first.cwd, "work.txt")), "in progress\n");
});

Deno.test("a pull request's worktree starts at its head on the-loop/pr-<n>", async () => {
  await using s = await setup();
  const { env, remote, ws } = s;
  const head = await remote.pushPull(7, { "feature.txt": "from the PR\n" });
  const co = await ws.prepare(item(7), {});
  assert.equal(co.branch, "the-loop/pr-7");
  assert.equal(await Deno.readTextFile(join(co.cwd, "feature.txt")), "from the PR\n");
  assert.equal((await git(env, "-C", co.cwd, "rev-parse", "HEAD")).trim(), head);
});

Deno.test("a pull request of an already cached repository also costs one fetch", async () => {
  await using s = await setup();
  const { remote, rec, ws } = s;
  await ws.prepare(item(1), {});
  await remote.pushPull(8, { "pr8.txt": "eight\n" });
  const before = rec.calls.length;
  const co = await ws.prepare(item(8), {});
  assert.equal(co.branch, "the-loop/pr-8");
  assert.equal(await Deno.readTextFile(join(co.cwd, "pr8.txt")), "eight\n");
  const ran = subcommands(rec.calls.slice(before));
  assert.deepEqual(ran.filter((c) => c === "fetch" || c === "clone"), ["fetch"]);
});

Deno.test("a remote that cannot be cloned fails naming the step and leaves no half-made cache", async () => {
  await using s = await setup();
  const { dir, events, root, rec } = s;
  const ws = new GitWorkspaces({
    root,
    remoteUrl: () => join(dir, "missing.git"),
    events,
    run: rec.run,
  });
  const err = await ws.prepare(item(1), {}).then(() => undefined, (e) => e);
  assert.ok(err instanceof WorkspaceError, String(err));
  assert.equal(err.step, "clone");
  assert.match(err.message, /github:octo\/repo#1: `git clone .*` failed \(exit 128\)/);
  assert.match(err.message, /Check that the repository exists/);
  assert.deepEqual(
    [...Deno.readDirSync(join(root, ".cache", "github.com", "octo"))].map((e) => e.name),
    [],
  );
  assert.equal(events.ofType("workspace.failed")[0].step, "clone");
});

Deno.test("a folder in the worktree's place that is not a worktree is reported, not overwritten", async () => {
  await using s = await setup();
  const { root, ws } = s;
  const path = join(root, "github.com", "octo", "repo", "9");
  await Deno.mkdir(path, { recursive: true });
  await Deno.writeTextFile(join(path, "mine.txt"), "keep me\n");
  await assert.rejects(ws.prepare(item(9), {}), /is not a git worktree: move it away/);
  assert.equal(await Deno.readTextFile(join(path, "mine.txt")), "keep me\n");
});
