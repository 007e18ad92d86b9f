import assert from "node:assert/strict";
import { join } from "node:path";
import { MemorySink } from "../../events/mod.ts";
import { RegistryDir } from "../../state/registry.ts";
import { parseWorkItem, type WorkItemRef } from "../../state/work_item.ts";
import { RECENT_DELIVERIES, SessionExistsError, SessionStore } from "./mod.ts";

const ref = (text: string): WorkItemRef => parseWorkItem(text)!;
const NOW = new Date("2026-12-01T10:00:00.000Z");

function setup() {
  const dir = join(Deno.makeTempDirSync({ prefix: "sessions-store-" }), "sessions");
  const warnings: string[] = [];
  const events = new MemorySink();
  const registry = new RegistryDir(dir, { warn: (m) => warnings.push(m) });
  const store = new SessionStore({ registry, events, now: () => NOW });
  return { dir, warnings, events, store };
}

const claude = (item: WorkItemRef, id = "id-1") => ({
  item,
  harness: "claude" as const,
  harnessSessionId: id,
  cwd: "/work/x",
});

Deno.test("register writes the session file with exactly the registry's fields", async () => {
  const { dir, events, store } = setup();
  const item = ref("github:octo/repo#15");
  await store.register({ ...claude(item), url: "https://github.com/octo/repo/issues/15" });
  const text = await Deno.readTextFile(join(dir, "github-octo-repo-15.json"));
  assert.ok(text.endsWith("}\n") && text.includes('\n  "harness": "claude"'), text);
  const { rev, ...fields } = JSON.parse(text);
  assert.match(rev, /^[0-9a-f]{8}$/, "a new rev at each write (the deliveries log names it)");
  assert.deepEqual(fields, {
    workItem: {
      ref: "github:octo/repo#15",
      provider: "github",
      owner: "octo",
      repo: "repo",
      number: 15,
    },
    harness: "claude",
    harnessSessionId: "id-1",
    cwd: "/work/x",
    status: "active",
    createdAt: NOW.toISOString(),
    lastEventAt: null,
    tmuxTarget: "",
    recentDeliveries: [],
    url: "https://github.com/octo/repo/issues/15",
    usage: {
      since: "2026-12-01T10:00:00.000Z",
      grants: 0,
      delivered: 0,
      deliveries: [],
      authors: {},
      launches: ["2026-12-01T10:00:00.000Z"],
      runs: 0,
    },
  });
  assert.deepEqual(events.ofType("session.registered").map((r) => [r.work_item, r.replaced]), [
    ["github:octo/repo#15", false],
  ]);
});

Deno.test("an Enterprise ref keeps its host in the record and its own file", async () => {
  const { dir, store } = setup();
  await store.register(claude(ref("github:git.corp.example/octo/repo#3")));
  const record = JSON.parse(
    await Deno.readTextFile(join(dir, "github-git.corp.example-octo-repo-3.json")),
  );
  assert.equal(record.workItem.host, "git.corp.example");
  assert.equal(record.workItem.ref, "github:git.corp.example/octo/repo#3");
  assert.equal(
    await store.live("github:octo/repo#3"),
    undefined,
    "github.com's #3 is another item",
  );
});

Deno.test("one live session per item: a second register throws, --force replaces, after close it is fine", async () => {
  const { events, store } = setup();
  const item = ref("github:octo/repo#1");
  await store.register(claude(item, "first"));
  await assert.rejects(
    () => store.register(claude(item, "second")),
    (e: unknown) =>
      e instanceof SessionExistsError && e.existing.harnessSessionId === "first" &&
      e.message ===
        "an active session already exists for github:octo/repo#1 (harness=claude, id=first); use --force to replace it",
  );
  assert.equal(
    (await store.live(item.ref))?.harnessSessionId,
    "first",
    "the refused one wrote nothing",
  );
  // a paused session is live too
  await store.update(item.ref, { status: "paused" });
  await assert.rejects(() => store.register(claude(item, "second")), SessionExistsError);
  await store.register({ ...claude(item, "second"), force: true });
  assert.equal((await store.live(item.ref))?.harnessSessionId, "second");
  assert.equal((await store.live(item.ref))?.status, "active");
  await store.close(item.ref);
  await store.register(claude(item, "third"));
  assert.deepEqual(events.ofType("session.registered").map((r) => r.replaced), [
    false,
    true,
    false,
  ]);
});

Deno.test("close keeps the file as closed and logs session.closed; a second close finds nothing", async () => {
  const { dir, events, store } = setup();
  const item = ref("github:octo/repo#2");
  await store.register(claude(item));
  const closed = await store.close(item.ref, { reason: "cli" });
  assert.equal(closed?.status, "closed");
  assert.equal(
    JSON.parse(await Deno.readTextFile(join(dir, "github-octo-repo-2.json"))).status,
    "closed",
  );
  assert.equal(await store.live(item.ref), undefined);
  assert.equal((await store.get(item.ref))?.status, "closed");
  assert.equal(await store.close(item.ref), undefined);
  assert.deepEqual(events.ofType("session.closed").map((r) => [r.work_item, r.reason]), [
    ["github:octo/repo#2", "cli"],
  ]);
});

Deno.test("list has every record, closed ones too, sorted by ref (#9 before #10)", async () => {
  const { store } = setup();
  for (const r of ["github:octo/repo#10", "github:acme/app#2", "github:octo/repo#9"]) {
    await store.register(claude(ref(r)));
  }
  await store.close("github:octo/repo#10");
  assert.deepEqual((await store.list()).map((r) => [r.workItem.ref, r.status]), [
    ["github:acme/app#2", "active"],
    ["github:octo/repo#9", "active"],
    ["github:octo/repo#10", "closed"],
  ]);
});

Deno.test("corrupt and foreign files are skipped with one warning each, never fatal", async () => {
  const { dir, warnings, store } = setup();
  await store.register(claude(ref("github:octo/repo#1")));
  await Deno.writeTextFile(join(dir, "github-octo-repo-2.json"), "{not json");
  await Deno.writeTextFile(join(dir, "github-octo-repo-3.json"), '{"hello": "world"}');
  await Deno.writeTextFile(join(dir, "poll-state.json"), "{}");
  for (let i = 0; i < 2; i++) {
    assert.deepEqual((await store.list()).map((r) => r.workItem.ref), ["github:octo/repo#1"]);
  }
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(warnings.join("\n"), /github-octo-repo-2\.json: not valid JSON/);
  assert.match(warnings.join("\n"), /github-octo-repo-3\.json: not a session record/);
  // a corrupt file holds no live session: registering over it works
  assert.equal(await store.live("github:octo/repo#2"), undefined);
  await store.register(claude(ref("github:octo/repo#2")));
  assert.equal((await store.live("github:octo/repo#2"))?.status, "active");
});

Deno.test("touch stamps lastEventAt and keeps the last 50 deliveries, newest last", async () => {
  const { store } = setup();
  const item = ref("github:octo/repo#4");
  assert.equal(await store.touch(item.ref, "d0"), undefined, "no session: nothing to touch");
  await store.register(claude(item));
  for (let i = 1; i <= 60; i++) await store.touch(item.ref, `d${i}`);
  const record = (await store.live(item.ref))!;
  assert.equal(record.lastEventAt, NOW.toISOString());
  assert.equal(record.recentDeliveries.length, RECENT_DELIVERIES);
  assert.equal(record.recentDeliveries[0], "d11");
  assert.equal(record.recentDeliveries.at(-1), "d60");
  assert.equal(await store.hasDelivery(item.ref, "d60"), true);
  assert.equal(await store.hasDelivery(item.ref, "d10"), false);
  await store.touch(item.ref, "d30"); // a repeat moves to the end, never twice
  const again = (await store.live(item.ref))!.recentDeliveries;
  assert.equal(again.at(-1), "d30");
  assert.equal(again.filter((d) => d === "d30").length, 1);
});

Deno.test("a batch's touch notes all its ids in order, and lookup answers both questions", async () => {
  const { store } = setup();
  const item = ref("github:octo/repo#6");
  assert.deepEqual(await store.lookup(item.ref, "x"), { duplicate: false, live: undefined });
  await store.register(claude(item));
  await store.touch(item.ref, ["a", "b"]);
  await store.touch(item.ref, ["c", "a", "d"]); // a repeat moves to the end, never twice
  const record = (await store.live(item.ref))!;
  assert.deepEqual(record.recentDeliveries, ["b", "c", "a", "d"]);
  assert.deepEqual(await store.lookup(item.ref, "c"), { duplicate: true, live: record });
  assert.equal((await store.lookup(item.ref, "zz")).duplicate, false);
  await store.close(item.ref);
  // a closed record still knows what it took; it is no longer live
  assert.deepEqual(await store.lookup(item.ref, "d"), { duplicate: true, live: undefined });
});

Deno.test("update changes only the patched fields; an unknown item is undefined", async () => {
  const { store } = setup();
  const item = ref("github:octo/repo#5");
  assert.equal(await store.update(item.ref, { status: "paused" }), undefined);
  await store.register(claude(item));
  await store.update(item.ref, { tmuxTarget: "loop-github-octo-repo-5", harnessSessionId: "id-2" });
  const record = (await store.live(item.ref))!;
  assert.equal(record.tmuxTarget, "loop-github-octo-repo-5");
  assert.equal(record.harnessSessionId, "id-2");
  assert.equal(record.cwd, "/work/x");
  assert.equal(record.status, "active");
});

Deno.test("concurrent touches in one process lose no update", async () => {
  const { store } = setup();
  const item = ref("github:octo/repo#6");
  await store.register(claude(item));
  await Promise.all(Array.from({ length: 30 }, (_, i) => store.touch(item.ref, `p${i}`)));
  assert.equal((await store.live(item.ref))!.recentDeliveries.length, 30);
});

const CHILD = `
import { SessionStore } from ${JSON.stringify(new URL("./mod.ts", import.meta.url).href)};
import { RegistryDir } from ${
  JSON.stringify(new URL("../../state/registry.ts", import.meta.url).href)
};
const [dir, ref, prefix, count] = Deno.args;
const store = new SessionStore({ registry: new RegistryDir(dir), events: { emit() {} } });
console.log("ready");
await Deno.stdin.read(new Uint8Array(8)); // go: both children start touching together
for (let i = 0; i < Number(count); i++) await store.touch(ref, prefix + i);
`;

/** Reads `child`'s stdout up to its first newline. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel(); // the child prints nothing more
  return text.split("\n")[0];
}

Deno.test("two processes touching one record under the lock lose no update", async () => {
  const { dir, store } = setup();
  const item = ref("github:octo/repo#7");
  await store.register(claude(item));
  const script = join(dir, "..", "child.ts");
  await Deno.writeTextFile(script, CHILD);
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const prefixes = ["a", "b"];
  const children = prefixes.map((prefix) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--cached-only",
        "--no-prompt",
        "--config",
        config,
        "--allow-read",
        "--allow-write",
        "--allow-env",
        script,
        dir,
        item.ref,
        prefix,
        "25",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn()
  );
  const lines = await Promise.all(children.map((c) => firstLine(c.stdout)));
  for (const c of children) {
    const w = c.stdin.getWriter();
    await w.write(new TextEncoder().encode("go\n"));
    await w.close();
  }
  for (const c of children) {
    const [status, stderr] = await Promise.all([c.status, new Response(c.stderr).text()]);
    assert.equal(status.code, 0, stderr);
  }
  assert.deepEqual(lines, ["ready", "ready"]);
  const got = (await store.live(item.ref))!.recentDeliveries;
  assert.equal(got.length, 50, `lost updates: ${JSON.stringify(got)}`);
  for (const p of prefixes) {
    const mine = got.filter((d) => d.startsWith(p));
    assert.deepEqual(
      mine,
      Array.from({ length: 25 }, (_, i) => `${p}${i}`),
      "each process's order kept",
    );
  }
});
