import assert from "node:assert/strict";
import { join } from "node:path";
import { describeSearch, loadConfig, lookupDirs } from "./mod.ts";
import { envOf, tempTree } from "./_test_utils.ts";

/** How many folders lie above `dir` (`/a/b` has two: `/a` and `/`). */
const parentsOf = (dir: string) => dir.split("/").filter(Boolean).length;

Deno.test("lookup walks up from a subfolder to the nearest .the-loop/cli-config.yaml", async () => {
  const repo = tempTree({
    ".the-loop/cli-config.yaml": "state: { root: run }\nhooks:\n  - { name: a, path: h/a.ts }\n",
    "docs/deep/x.md": "",
  });
  const cwd = join(repo, "docs/deep");
  const loaded = await loadConfig({ env: envOf({ HOME: join(repo, "home") }), cwd });
  assert.equal(loaded.path, join(repo, ".the-loop/cli-config.yaml"));
  assert.equal(loaded.source, "found");
  assert.deepEqual(loaded.searched, [
    join(repo, "docs/deep/.the-loop"),
    join(repo, "docs/.the-loop"),
    join(repo, ".the-loop"),
  ]);
  assert.equal(loaded.origin, `${loaded.path} (found in ../../.the-loop)`);
  // relative paths keep resolving against the file's folder, not where the command runs
  assert.equal(loaded.baseDir, join(repo, ".the-loop"));
  assert.equal(loaded.config.state.root, join(repo, ".the-loop/run"));
  assert.equal(loaded.config.eventLog.path, join(repo, ".the-loop/run/logs/events.jsonl"));
});

Deno.test("the nearest folder wins; ~/.the-loop comes after the walk reaches the root", async () => {
  const root = tempTree({
    "home/.the-loop/cli-config.yaml": "polling: { intervalSeconds: 1 }\n",
    "a/.the-loop/cli-config.yaml": "polling: { intervalSeconds: 2 }\n",
    "a/b/.the-loop/cli-config.yaml": "polling: { intervalSeconds: 3 }\n",
    "a/b/c/.keep": "",
    "elsewhere/.keep": "",
  });
  const env = envOf({ HOME: join(root, "home") });
  const at = async (rel: string) => {
    const l = await loadConfig({ env, cwd: join(root, rel) });
    return [l.source, l.config.polling.intervalSeconds];
  };
  assert.deepEqual(await at("a/b/c"), ["found", 3]);
  assert.deepEqual(await at("a/b"), ["found", 3]);
  assert.deepEqual(await at("a"), ["found", 2]);
  assert.deepEqual(await at("elsewhere"), ["home", 1]);
  // a folder named .the-loop without a cli-config.yaml in it (a state root) does not stop the walk
  Deno.mkdirSync(join(root, "a/b/c/.the-loop"));
  assert.deepEqual(await at("a/b/c"), ["found", 3]);
});

Deno.test("lookupDirs: every folder up to the root, then ~/.the-loop unless already passed", () => {
  assert.deepEqual(lookupDirs({ cwd: "/srv/app/docs", env: envOf({ HOME: "/home/me" }) }), [
    "/srv/app/docs/.the-loop",
    "/srv/app/.the-loop",
    "/srv/.the-loop",
    "/.the-loop",
    "/home/me/.the-loop",
  ]);
  assert.deepEqual(lookupDirs({ cwd: "/home/me/proj", env: envOf({ HOME: "/home/me" }) }), [
    "/home/me/proj/.the-loop",
    "/home/me/.the-loop",
    "/home/.the-loop",
    "/.the-loop",
  ]);
  assert.deepEqual(lookupDirs({ cwd: "/", env: envOf({}) }), ["/.the-loop"]);
});

Deno.test("with no file anywhere, messages say where the lookup looked", async () => {
  const dir = tempTree({ "x/y/.keep": "" });
  const cwd = join(dir, "x/y");
  const loaded = await loadConfig({ env: envOf({ HOME: join(dir, "home") }), cwd });
  assert.equal(loaded.source, "none");
  assert.equal(loaded.searched.length, parentsOf(cwd) + 2);
  assert.equal(
    loaded.origin,
    `no config file found in ./.the-loop and ${parentsOf(cwd)} parent folders up to /, ` +
      "then ~/.the-loop; defaults apply",
  );
  // without a file, relative defaults resolve against the working folder
  assert.equal(loaded.config.state.root, join(cwd, ".the-loop"));
});

Deno.test("describeSearch shortens the list of folders", () => {
  const home = "/home/me";
  const say = (cwd: string) =>
    describeSearch(lookupDirs({ cwd, env: envOf({ HOME: home }) }), { cwd, home });
  assert.equal(say("/srv/app/docs"), "./.the-loop and 3 parent folders up to /, then ~/.the-loop");
  assert.equal(say("/home/me/proj"), "./.the-loop and 3 parent folders up to /");
  assert.equal(say("/srv"), "./.the-loop and 1 parent folder up to /, then ~/.the-loop");
  assert.equal(say("/"), "./.the-loop, then ~/.the-loop");
  // a walk that stopped early (the file was found) names the folder it stopped at
  assert.equal(
    describeSearch(["/srv/app/docs/.the-loop", "/srv/app/.the-loop"], { cwd: "/srv/app/docs" }),
    "./.the-loop and 1 parent folder up to /srv/app",
  );
});

Deno.test("--config and $THE_LOOP_CLI_CONFIG skip the lookup: nothing searched", async () => {
  const dir = tempTree({ "c.yaml": "{}\n", ".the-loop/cli-config.yaml": "{}\n" });
  const flag = await loadConfig({ flag: "c.yaml", env: envOf({}), cwd: dir });
  assert.deepEqual([flag.source, flag.searched, flag.origin], [
    "flag",
    [],
    `${join(dir, "c.yaml")} (--config)`,
  ]);
  const env = await loadConfig({ env: envOf({ THE_LOOP_CLI_CONFIG: "c.yaml" }), cwd: dir });
  assert.deepEqual([env.source, env.origin], [
    "env",
    `${join(dir, "c.yaml")} ($THE_LOOP_CLI_CONFIG)`,
  ]);
});

/** Can this process chown files (it runs as root)? Tried on a temp file. */
function isRoot(): boolean {
  const probe = Deno.makeTempFileSync();
  try {
    Deno.chownSync(probe, 4242, 4242);
    return true;
  } catch {
    return false;
  } finally {
    Deno.removeSync(probe);
  }
}

Deno.test({
  name: "a looked-up config owned by another user is refused; --config still reads it",
  ignore: Deno.build.os === "windows" || !isRoot(), // making a file another user's needs root
  fn: async () => {
    const root = tempTree({ ".the-loop/cli-config.yaml": "{}\n", "mine/.keep": "", "home/.k": "" });
    const file = join(root, ".the-loop/cli-config.yaml");
    Deno.chownSync(file, 4242, 4242);
    Deno.chownSync(join(root, "mine"), 4343, 4343); // the working folder: neither root's nor 4242's
    Deno.chownSync(join(root, "home"), 4343, 4343); // you
    const env = envOf({ HOME: join(root, "home") });
    await assert.rejects(
      loadConfig({ env, cwd: join(root, "mine") }),
      new Error(
        `${file} was found by lookup but belongs to another user (uid 4242), and a config can ` +
          "name programs to run; a looked-up config is read only when it belongs to you (the " +
          "owner of $HOME), to root or to the owner of the working folder — name it with " +
          "--config (or $THE_LOOP_CLI_CONFIG) to use it anyway",
      ),
    );
    assert.equal((await loadConfig({ flag: file, env, cwd: join(root, "mine") })).path, file);
    // the working folder's owner owns it too (a checkout mounted into a container): read
    Deno.chownSync(join(root, "mine"), 4242, 4242);
    assert.equal((await loadConfig({ env, cwd: join(root, "mine") })).path, file);
    // so it is when it is yours
    Deno.chownSync(join(root, "mine"), 4343, 4343);
    Deno.chownSync(file, 4343, 4343);
    assert.equal((await loadConfig({ env, cwd: join(root, "mine") })).path, file);
  },
});
