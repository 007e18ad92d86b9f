import assert from "node:assert/strict";
import { join } from "node:path";
import { RegistryDir, type SessionRecord } from "./registry.ts";

function record(ref: string, status: SessionRecord["status"]): SessionRecord {
  const [, owner, repo, n] = /^github:([^/]+)\/([^#]+)#(\d+)$/.exec(ref)!;
  return {
    workItem: { ref, provider: "github", owner, repo, number: Number(n) },
    harness: "claude",
    harnessSessionId: crypto.randomUUID(),
    cwd: "/tmp",
    status,
    createdAt: "2026-12-01T00:00:00Z",
    lastEventAt: null,
    tmuxTarget: "",
    recentDeliveries: [],
    url: "",
  };
}

Deno.test("the registry finds live sessions and skips closed ones", async () => {
  const dir = join(Deno.makeTempDirSync(), "sessions");
  const reg = new RegistryDir(dir);
  assert.deepEqual(await reg.listLive(), []); // no folder yet: no sessions, no error
  await reg.write(record("github:octo/repo#1", "active"));
  await reg.write(record("github:octo/repo#2", "paused"));
  await reg.write(record("github:octo/repo#3", "closed"));
  assert.equal((await reg.live("github:octo/repo#1"))?.status, "active");
  assert.equal((await reg.live("github:octo/repo#2"))?.status, "paused");
  assert.equal(await reg.live("github:octo/repo#3"), undefined);
  assert.equal(await reg.live("not a ref"), undefined);
  assert.deepEqual((await reg.listLive()).map((r) => r.workItem.ref), [
    "github:octo/repo#1",
    "github:octo/repo#2",
  ]);
  const text = Deno.readTextFileSync(join(dir, "github-octo-repo-1.json"));
  assert.ok(text.endsWith("}\n") && text.includes('\n  "harness": "claude"'), "indented JSON");
});

Deno.test("files the registry did not write are skipped with one warning; other files are ignored", async () => {
  const dir = Deno.makeTempDirSync();
  const warnings: string[] = [];
  const reg = new RegistryDir(dir, { warn: (m) => warnings.push(m) });
  await reg.write(record("github:octo/repo#1", "active"));
  Deno.writeTextFileSync(join(dir, "github-octo-repo-2.json"), "{not json");
  Deno.writeTextFileSync(join(dir, "github-octo-repo-3.json"), '{"hello": "world"}');
  Deno.writeTextFileSync(join(dir, "poll-state.json"), '{"items": {}}'); // the poll ledger
  for (let i = 0; i < 3; i++) assert.equal((await reg.listLive()).length, 1);
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(warnings.join("\n"), /github-octo-repo-2\.json: not valid JSON/);
  assert.match(warnings.join("\n"), /github-octo-repo-3\.json: not a session record/);
  assert.doesNotMatch(warnings.join("\n"), /poll-state/);
});

Deno.test("a session written right after a lookup is seen by the next lookup", async () => {
  const dir = join(Deno.makeTempDirSync(), "sessions");
  const reg = new RegistryDir(dir);
  const writer = new RegistryDir(dir); // the dispatcher, say
  for (let n = 1; n <= 20; n++) {
    const ref = `github:octo/repo#${n}`;
    assert.equal(await reg.live(ref), undefined);
    await writer.write(record(ref, "active"));
    assert.equal((await reg.live(ref))?.status, "active", `session ${n}`);
    await writer.write(record(ref, "closed"));
    assert.equal(await reg.live(ref), undefined, `closed ${n}`);
  }
});

Deno.test("a session file removed after a lookup is gone for the next one (its name was listed)", async () => {
  const dir = join(Deno.makeTempDirSync(), "sessions");
  const reg = new RegistryDir(dir);
  const ref = "github:octo/repo#7";
  await reg.write(record(ref, "active"));
  assert.equal((await reg.live(ref))?.status, "active");
  Deno.removeSync(join(dir, "github-octo-repo-7.json"));
  assert.equal(await reg.get(ref), undefined);
  await reg.write(record(ref, "paused"));
  assert.equal((await reg.live(ref))?.status, "paused");
});
