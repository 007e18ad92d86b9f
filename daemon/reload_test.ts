import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../config/mod.ts";
import { ProblemsError } from "../errors.ts";
import { MemorySink } from "../events/mod.ts";
import { ConfigReloader, type ConfigReloaderOptions } from "./reload.ts";

async function setup(yaml: string, o: Pick<ConfigReloaderOptions, "validate"> = {}) {
  const dir = Deno.makeTempDirSync({ prefix: "the-loop-reload-" });
  const path = join(dir, "cli-config.yaml");
  Deno.writeTextFileSync(path, yaml);
  const env = (name: string) => (name === "HOME" ? dir : undefined);
  const loaded = await loadConfig({ flag: path, env, cwd: dir });
  const events = new MemorySink();
  const warnings: string[] = [];
  const reloader = new ConfigReloader({
    loaded,
    env,
    cwd: dir,
    events,
    warn: (m) => warnings.push(m),
    ...o,
  });
  return { path, reloader, events, warnings };
}

Deno.test("an edit made between loading and the first check is seen", async () => {
  const { path, reloader, events } = await setup("polling:\n  intervalSeconds: 30\n");
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 9\n");
  assert.equal((await reloader.check()).polling.intervalSeconds, 9);
  assert.deepEqual(events.records.map((r) => r.event), ["config.reloaded"]);
});

Deno.test("concurrent checks share one read: one reload event for one edit", async () => {
  const { path, reloader, events } = await setup("polling:\n  intervalSeconds: 30\n");
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 8\n");
  const all = await Promise.all(Array.from({ length: 20 }, () => reloader.check()));
  assert.ok(all.every((c) => c.polling.intervalSeconds === 8));
  assert.deepEqual(events.records.map((r) => r.event), ["config.reloaded"]);
});

Deno.test("an unchanged file is never rebuilt and says nothing", async () => {
  const { reloader, events } = await setup("polling:\n  intervalSeconds: 30\n");
  const first = await reloader.check();
  assert.equal(await reloader.check(), first);
  assert.equal(await reloader.check(), first);
  assert.deepEqual(events.records, []);
});

Deno.test("an edit is taken on the next check, naming the sections that changed", async () => {
  const { path, reloader, events } = await setup("polling:\n  intervalSeconds: 30\n");
  await reloader.check();
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 5\n");
  const config = await reloader.check();
  assert.equal(config.polling.intervalSeconds, 5);
  assert.equal(reloader.config, config);
  assert.equal(events.records.length, 1);
  assert.equal(events.records[0].event, "config.reloaded");
  assert.deepEqual(events.records[0].changed, ["polling"]);
  assert.equal(events.records[0].path, path);
});

Deno.test("a broken edit keeps the previous config and says why once", async () => {
  const { path, reloader, events, warnings } = await setup("polling:\n  intervalSeconds: 30\n");
  await reloader.check();
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: soon\n");
  for (let i = 0; i < 3; i++) assert.equal((await reloader.check()).polling.intervalSeconds, 30);
  assert.deepEqual(events.records.map((r) => r.event), ["config.reload_failed"]);
  assert.match(
    String(events.records[0].problems),
    /cli-config\.yaml:2:\d+: polling\.intervalSeconds/,
  );
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /keeping the previous config/);
  // fixed again: taken
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 7\n");
  assert.equal((await reloader.check()).polling.intervalSeconds, 7);
  assert.deepEqual(events.records.map((r) => r.event), ["config.reload_failed", "config.reloaded"]);
});

Deno.test("an edit its validator refuses keeps the whole previous config, located, said once", async () => {
  const asked: string[] = [];
  const { path, reloader, events, warnings } = await setup(
    "polling:\n  intervalSeconds: 30\nstate:\n  root: ./s\n",
    {
      // what the schema cannot say: here, an interval of 13 is refused where it is written
      validate: (config, { locate, file }) => {
        asked.push(file);
        if (config.polling.intervalSeconds !== 13) return;
        const at = locate(["polling", "intervalSeconds"]);
        throw new ProblemsError([{
          file,
          ...at,
          path: "polling.intervalSeconds",
          message: "13 is refused",
        }]);
      },
    },
  );
  const before = await reloader.check();
  // the refused edit changes another section too: none of it is taken
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 13\nstate:\n  root: ./other\n");
  for (let i = 0; i < 3; i++) assert.equal(await reloader.check(), before);
  assert.equal(reloader.config, before);
  assert.deepEqual(events.records.map((r) => r.event), ["config.reload_failed"]);
  assert.deepEqual(events.records[0].problems, [
    `${path}:2:20: polling.intervalSeconds: 13 is refused`,
  ]);
  assert.equal(events.records[0].level, "error");
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /^config edit refused, keeping the previous config: 1 problem\(s\) in .*cli-config\.yaml:\n {2}.*:2:20: polling\.intervalSeconds: 13 is refused$/,
  );
  // refused once per content: the same text is not asked again
  assert.deepEqual(asked, [path]);
  // a later good edit is taken
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 14\nstate:\n  root: ./other\n");
  const after = await reloader.check();
  assert.equal(after.polling.intervalSeconds, 14);
  assert.notEqual(after.state.root, before.state.root);
  assert.deepEqual(events.records.map((r) => r.event), ["config.reload_failed", "config.reloaded"]);
  const changed = events.records[1].changed as string[];
  assert.ok(changed.includes("polling") && changed.includes("state"), String(changed));
});

Deno.test("a token in a broken edit is masked in the event", async () => {
  const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
  const { path, reloader, events } = await setup("polling:\n  intervalSeconds: 30\n");
  await reloader.check();
  Deno.writeTextFileSync(path, `github:\n  ${token}: 1\n`);
  await reloader.check();
  assert.equal(events.records[0].event, "config.reload_failed");
  assert.ok(!JSON.stringify(events.records).includes(token));
});

Deno.test("an empty file (an editor's truncate before its write) is not taken for all defaults", async () => {
  const { path, reloader, events } = await setup("polling:\n  intervalSeconds: 30\n");
  await reloader.check();
  Deno.writeTextFileSync(path, "");
  assert.equal((await reloader.check()).polling.intervalSeconds, 30);
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 12\n");
  assert.equal((await reloader.check()).polling.intervalSeconds, 12);
  assert.deepEqual(events.records.map((r) => r.event), ["config.reloaded"]);
});

Deno.test("checks for events taken before the last look share it; a later one sees an edit", async () => {
  const { path, reloader } = await setup("polling:\n  intervalSeconds: 30\n");
  const batch = performance.now(); // a batch of deliveries taken together
  assert.equal((await reloader.check({ asOf: batch })).polling.intervalSeconds, 30);
  Deno.writeTextFileSync(path, "polling:\n  intervalSeconds: 7\n");
  // the rest of the batch: the config as it was after they arrived
  assert.equal((await reloader.check({ asOf: batch })).polling.intervalSeconds, 30);
  assert.equal((await reloader.check({ asOf: performance.now() })).polling.intervalSeconds, 7);
});
