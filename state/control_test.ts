import assert from "node:assert/strict";
import { join } from "node:path";
import { ControlStore } from "./control.ts";

Deno.test("a recorded command reads back, survives a new store, and start follows the last one", async () => {
  const root = Deno.makeTempDirSync();
  const ref = "github:octo/repo#15";
  const store = new ControlStore(root);
  assert.equal(await store.get(ref), undefined);
  assert.equal(await store.startRequested(ref), false);
  const record = {
    ref,
    command: "start" as const,
    source: "comment" as const,
    actor: "alice",
    requestedAt: "2026-12-01T00:00:00Z",
    note: "https://github.com/octo/repo/issues/15#issuecomment-1",
  };
  await store.record(record);
  const again = new ControlStore(root); // a restart
  assert.deepEqual(await again.get(ref), record);
  assert.equal(await again.startRequested(ref), true);
  await again.record({ ...record, command: "pause" });
  assert.equal(await again.startRequested(ref), false);
  await again.record({ ...record, command: "resume" });
  assert.equal(await again.startRequested(ref), true);
  await again.clear(ref);
  assert.equal(await again.get(ref), undefined);
  assert.ok(Deno.readDirSync(join(root, "control")));
});

Deno.test("a file that is not a control record reads as none; a bad ref is refused", async () => {
  const root = Deno.makeTempDirSync();
  const store = new ControlStore(root);
  Deno.mkdirSync(join(root, "control"));
  Deno.writeTextFileSync(join(root, "control", "github-octo-repo-1.json"), '{"command":"rm -rf"}');
  assert.equal(await store.get("github:octo/repo#1"), undefined);
  assert.equal(await store.get("octo/repo#1"), undefined);
  await assert.rejects(
    () =>
      store.record({
        ref: "octo/repo#1",
        command: "stop",
        source: "cli",
        actor: "alice",
        requestedAt: "",
        note: "",
      }),
    RangeError,
  );
});
