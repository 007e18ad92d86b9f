import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_test_utils.ts";
import schema from "../schema/cli-config.schema.json" with { type: "json" };

const tempCwd = () => Deno.realPathSync(Deno.makeTempDirSync({ prefix: "the-loop-init-" }));

Deno.test("init writes a config that validates, with the schema beside it", async () => {
  const cwd = tempCwd();
  const r = await cli(["init"], { cwd });
  assert.equal(r.code, 0, r.stderr);
  const file = join(cwd, ".the-loop/cli-config.yaml");
  assert.match(r.stdout, new RegExp(`^wrote ${file}\n`));
  const text = Deno.readTextFileSync(file);
  assert.equal(text.split("\n")[0], "# yaml-language-server: $schema=./cli-config.schema.json");
  assert.deepEqual(
    JSON.parse(Deno.readTextFileSync(join(cwd, ".the-loop/cli-config.schema.json"))),
    schema,
  );
  const v = await cli(["config", "validate"], { cwd });
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.stdout, `ok: ${file}\n`);
});

Deno.test("init refuses to overwrite an existing config; --force overwrites it", async () => {
  const cwd = tempCwd();
  assert.equal((await cli(["init"], { cwd })).code, 0);
  const file = join(cwd, ".the-loop/cli-config.yaml");
  const template = Deno.readTextFileSync(file);
  Deno.writeTextFileSync(file, "polling: { intervalSeconds: 5 }\n");

  const again = await cli(["init"], { cwd });
  assert.equal(again.code, 1);
  assert.equal(again.stderr, `the-loop: ${file} already exists; use --force to overwrite it\n`);
  assert.equal(Deno.readTextFileSync(file), "polling: { intervalSeconds: 5 }\n");

  const forced = await cli(["init", "--force"], { cwd });
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(Deno.readTextFileSync(file), template);
});

Deno.test("init writes to the --config path when given", async () => {
  const cwd = tempCwd();
  const r = await cli(["--config", "ops/the-loop.yaml", "init"], { cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(Deno.statSync(join(cwd, "ops/the-loop.yaml")).isFile);
  assert.ok(Deno.statSync(join(cwd, "ops/cli-config.schema.json")).isFile);
  assert.throws(() => Deno.statSync(join(cwd, ".the-loop")));
  const v = await cli(["-c", "ops/the-loop.yaml", "config", "validate"], { cwd });
  assert.equal(v.code, 0, v.stderr);
});

Deno.test("init writes where $THE_LOOP_CLI_CONFIG points, and says so", async () => {
  const cwd = tempCwd();
  const env = { THE_LOOP_CLI_CONFIG: "ops/the-loop.yaml" };
  const file = join(cwd, "ops/the-loop.yaml");
  const r = await cli(["init"], { cwd, env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.split("\n")[0], `wrote ${file} (named by $THE_LOOP_CLI_CONFIG)`);
  assert.ok(Deno.statSync(join(cwd, "ops/cli-config.schema.json")).isFile);
  assert.throws(() => Deno.statSync(join(cwd, ".the-loop")));
  const v = await cli(["config", "validate"], { cwd, env });
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.stdout, `ok: ${file}\n`);
  // --config still wins over the variable
  const flag = await cli(["--config", "flag.yaml", "init"], { cwd, env });
  assert.equal(flag.stdout.split("\n")[0], `wrote ${join(cwd, "flag.yaml")} (named by --config)`);
});

Deno.test("init in a subfolder of a configured repo says the new file takes the old one's place", async () => {
  const repo = tempCwd();
  assert.equal((await cli(["init"], { cwd: repo })).code, 0);
  const sub = join(repo, "docs");
  Deno.mkdirSync(sub);
  const r = await cli(["init"], { cwd: sub });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout.split("\n")[2],
    `note: in ${sub} and the folders under it, this file is read instead of ` +
      `${join(repo, ".the-loop/cli-config.yaml")} (found in ../.the-loop)`,
  );
  const v = await cli(["config", "validate"], { cwd: sub });
  assert.equal(v.stdout, `ok: ${join(sub, ".the-loop/cli-config.yaml")}\n`);
  // where nothing applies yet there is no note
  const fresh = await cli(["init"], { cwd: tempCwd() });
  assert.ok(!fresh.stdout.includes("note:"), fresh.stdout);
});
